// The one client of the latency windows (load.ts, alternating), in a process of its own. The
// bench's process holds about 40 MB of heap (data sets, token pools, the throughput windows'
// timings), whose collections pause it 4-18 ms at a time, often while a response is arriving, and
// would be counted in the route's p99. Here the heap holds a few requests, and a collection is short.
//
// The parent sends {targets, seconds}; before each request this process asks for the next path
// and body ({ask: target, answered?}, where `answered` is the previous response of the target
// just served, with its text when the parent reads responses), so that writes that change
// something each time and the refresh scenario's rotating tokens stay in the parent. The times
// are only those of the HTTP exchanges; at the end it sends {samples, failures}.
import { Agent, request as httpRequest } from 'node:http';

type Target = { url: string; method: string; headers: Record<string, string>; text: boolean };
type Task = { targets: Target[]; seconds: number };
type Next = { path: string; body?: string };

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let reply: ((next: Next) => void) | undefined;

function ask(message: object): Promise<Next> {
  return new Promise((resolve) => {
    reply = resolve;
    process.send!(message);
  });
}

function exchange(target: Target, next: Next): Promise<{ status: number; text?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${target.url}${next.path}`, {
      method: target.method,
      headers: target.headers,
      agent,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      if (target.text) res.on('data', (chunk: Buffer) => chunks.push(chunk));
      else res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: target.text ? Buffer.concat(chunks).toString() : undefined,
        }),
      );
      res.on('error', reject);
    });
    req.end(next.body);
  });
}

async function run({ targets, seconds }: Task) {
  const samples = targets.map((): number[] => []);
  const failures = targets.map(() => 0);
  let answered: { target: number; status: number; text?: string } | undefined;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (const [i, target] of targets.entries()) {
      const next = await ask({ ask: i, answered });
      const started = performance.now();
      const { status, text } = await exchange(target, next);
      samples[i].push(performance.now() - started);
      if (status < 200 || status > 299) failures[i]++;
      answered = { target: i, status, text };
    }
  }
  // The last response is handed over too (the refresh scenario keeps its token).
  process.send!({ done: true, answered, samples, failures });
}

process.on('message', (message: Task | Next) => {
  if ('targets' in message) run(message).catch((error) => process.send!({ error: String(error) }));
  else reply?.(message);
});
process.once('disconnect', () => process.exit(0));
