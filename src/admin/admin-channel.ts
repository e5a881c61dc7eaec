// The running server's loopback-only admin channel: HTTP on a Unix socket (mode 0600) in
// DATA_DIR (or in a 0700 folder of its own in the temp dir), authenticated by a random token in
// DATA_DIR/admin.token (0600). A second `comanda` process sends a command (name + JSON arguments)
// and the server runs it on its own database handle: PGlite keeps one owner. The answer is
// NDJSON: progress lines, then a result or an error.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { safeEqual } from '../lib/secrets.ts';
import { type CommandContext, commandNamed } from './commands.ts';
import { describeFailure } from './failure.ts';

export type AdminChannel = { socketPath: string; close(): Promise<void> };

export const tokenPath = (dataDir: string) => join(dataDir, 'admin.token');

/**
 * DATA_DIR/admin.sock; when that path is too long for a Unix socket (about 107 bytes), admin.sock
 * in a new folder of this process's own in the temp dir: mkdtemp gives it a random name no other
 * local user can take first, and mode 0700. The CLI finds the path in the lock file.
 */
function socketPlace(dataDir: string): { socketPath: string; folder?: string } {
  const socketPath = join(resolve(dataDir), 'admin.sock');
  if (Buffer.byteLength(socketPath) < 100) return { socketPath };
  const folder = mkdtempSync(join(resolve(tmpdir()), 'comanda-admin-'));
  return { socketPath: join(folder, 'admin.sock'), folder };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startAdminChannel(
  dataDir: string,
  ctx: Omit<CommandContext, 'onProgress'>,
): Promise<AdminChannel> {
  const token = randomBytes(32).toString('base64url');
  const { socketPath, folder } = socketPlace(dataDir);
  // The socket goes, and with it the folder of its own when it has one.
  const removeSocket = () => rmSync(folder ?? socketPath, { recursive: folder !== undefined, force: true });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const name = decodeURIComponent((req.url ?? '').replace(/^\/commands\//, ''));
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (req.method !== 'POST' || !safeEqual(bearer, token)) return res.writeHead(401).end();
    const command = commandNamed(name);
    if (!command) return res.writeHead(404).end();
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
    try {
      const args = body ? JSON.parse(body) : {};
      const result = await command({ ...ctx, onProgress: (progress) => line({ progress }) }, args);
      line({ result });
    } catch (err) {
      line({ error: describeFailure(err) });
    }
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  if (!folder) rmSync(socketPath, { force: true }); // a stale socket of a server that died: we hold the lock
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(socketPath, () => done());
    });
  } catch (err) {
    if (folder) removeSocket();
    throw err;
  }
  chmodSync(socketPath, 0o600);
  writeFileAtomic.sync(tokenPath(dataDir), token, { mode: 0o600 });
  return {
    socketPath,
    async close() {
      // Commands already running finish first; nobody can send a new one.
      await new Promise<void>((done) => server.close(() => done()));
      removeSocket();
      rmSync(tokenPath(dataDir), { force: true });
    },
  };
}
