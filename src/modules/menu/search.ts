const COMBINING_MARKS = /\p{M}/gu;

/**
 * Case- and accent-insensitive form: "Pão de Açúcar" -> "pao de acucar". Lower-casing first keeps
 * characters such as "İ", whose lower case carries a combining mark, comparable too.
 */
export function normalizeSearch(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(COMBINING_MARKS, '').trim();
}
