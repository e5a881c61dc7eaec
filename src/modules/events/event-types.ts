// The kinds of event and the read scope that shows each one (defined in db/event-scopes.ts): a
// credential sees (in the feed) and subscribes an endpoint to (webhooks) only the types of the
// resources it may read.
import { EVENT_TYPE_SCOPES } from '../../db/event-scopes.ts';
import type { Principal, Scope } from '../../http/principal.ts';

/** Defined in db/event-scopes.ts, which the database's copy is written from (migration 0022). */
export const EVENT_SCOPES = EVENT_TYPE_SCOPES satisfies Record<string, readonly Scope[]>;

export type EventType = keyof typeof EVENT_SCOPES;

export const EVENT_TYPES = Object.keys(EVENT_SCOPES) as EventType[];

/** Every scope that shows at least one type: the feed's route accepts any of them. */
export const FEED_SCOPES: Scope[] = [...new Set(Object.values(EVENT_SCOPES).flat())];

export const isEventType = (type: string): type is EventType => Object.hasOwn(EVENT_SCOPES, type);

/** Whether `scopes` hold a read scope of `type`. */
export const reads = (scopes: readonly string[], type: EventType): boolean =>
  EVENT_SCOPES[type].some((scope) => scopes.includes(scope));

/** The types `principal` may see; a restaurant session (the console) sees them all. */
export function readableTypes(principal: Principal): EventType[] {
  if (principal.kind === 'restaurant_session') return EVENT_TYPES;
  return EVENT_TYPES.filter((type) => reads(principal.scopes, type));
}

/** The scope(s) to ask for, when `types` names one the principal may not see; null when it may see all. */
export function missingScope(principal: Principal, types: EventType[]): string | null {
  const readable = readableTypes(principal);
  const hidden = types.find((type) => !readable.includes(type));
  return hidden ? EVENT_SCOPES[hidden].join(' or ') : null;
}
