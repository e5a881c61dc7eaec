// What PostgreSQL's text and jsonb can store: no NUL character and, once written as UTF-8, no lone
// UTF-16 surrogate. A value that breaks this fails its statement (a 500 unless refused first), so
// every writer and lookup of outside text asks here and says the problem in its own error.

/** Why PostgreSQL cannot store `text`, or null when it can. */
export function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (!text.isWellFormed()) return 'must be well-formed Unicode (a lone surrogate cannot be stored)';
  return null;
}
