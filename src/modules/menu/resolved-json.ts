// availability.resolved takes a handful of values (reason x schedulable): each is rendered
// once per process and reused by every product and request.
import type { MenuResolvedAvailability } from './types.ts';

const rendered = new Map<string | null, Buffer[]>();

export function resolvedJson(resolved: MenuResolvedAvailability): Buffer {
  let byFlags = rendered.get(resolved.reason);
  if (!byFlags) {
    byFlags = [];
    rendered.set(resolved.reason, byFlags);
  }
  const index = (resolved.available ? 2 : 0) + (resolved.schedulable ? 1 : 0);
  byFlags[index] ??= Buffer.from(JSON.stringify(resolved));
  return byFlags[index];
}
