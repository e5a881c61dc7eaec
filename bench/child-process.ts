// The helper processes of a run (the node:http baseline, the fiscal simulator), each in its own
// process so that neither shares an event loop with the load generator. A child announces its
// address as its first message, then answers each message the parent sends with one reply.
import { fork } from 'node:child_process';
import { once } from 'node:events';

export type Helper = {
  url: string;
  pid: number;
  ask(message: unknown): Promise<unknown>;
  stop(): Promise<void>;
};

export async function startHelper(entry: URL): Promise<Helper> {
  const child = fork(entry, [], { serialization: 'advanced', stdio: 'inherit' });
  const [url] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${entry.pathname} exited (${code}) before it was ready`);
    }),
  ])) as [string];
  return {
    url,
    pid: child.pid!,
    async ask(message) {
      child.send(message as object);
      const [reply] = await once(child, 'message');
      return reply;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
