// The client's memory of what it read with an ETag: per request path (query included), the tag
// and the body's text, least recently used first out past `maxEntries` paths or `maxLength` of
// text in all (UTF-16 code units: bytes for the usual JSON). A later read of the path sends
// If-None-Match; a 304 answers it from here (the server spent no rate-limit budget on it), parsed
// anew so a caller that changes its copy never changes the next caller's.
export type Tagged = { etag: string; text: string };

export type Revalidation = {
  /** The tagged body kept for `path`, now the most recently used; undefined when none is. */
  held(path: string): Tagged | undefined;
  /** Keeps a 200's text under its tag; an answer without a tag forgets the path. */
  keep(path: string, etag: string | null, text: string): void;
};

const DEFAULT_REVALIDATION_ENTRIES = 256;
/** 64 Mi: a partner polling the 2.5 MB menus of many restaurants keeps about 25 of them. */
const DEFAULT_REVALIDATION_LENGTH = 64 * 1024 * 1024;

export function createRevalidation(
  maxEntries = DEFAULT_REVALIDATION_ENTRIES,
  maxLength = DEFAULT_REVALIDATION_LENGTH,
): Revalidation {
  const entries = new Map<string, Tagged>();
  let length = 0;
  const forget = (path: string) => {
    length -= entries.get(path)?.text.length ?? 0;
    entries.delete(path);
  };
  return {
    held(path) {
      const entry = entries.get(path);
      if (!entry) return undefined;
      // A Map iterates in insertion order: moved to the end, it is the most recently used.
      entries.delete(path);
      entries.set(path, entry);
      return entry;
    },
    keep(path, etag, text) {
      forget(path);
      if (etag === null || maxEntries <= 0 || text.length > maxLength) return;
      entries.set(path, { etag, text });
      length += text.length;
      while (entries.size > maxEntries || length > maxLength) forget(entries.keys().next().value as string);
    },
  };
}
