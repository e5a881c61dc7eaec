import type { MenuProductInput } from './types.ts';

const COMBINING_MARKS = /\p{M}/gu;

/**
 * Case- and accent-insensitive form: "Pão de Açúcar" -> "pao de acucar". Lower-casing first keeps
 * characters such as "İ", whose lower case carries a combining mark, comparable too.
 */
export function normalizeSearch(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(COMBINING_MARKS, '').trim();
}

/**
 * `needle` must already be normalised (once per request); an empty needle matches every product.
 */
export function matchesSearch(
  product: Pick<MenuProductInput, 'name' | 'description'>,
  needle: string,
): boolean {
  return matchesText(product.name, product.description, needle);
}

/** matchesSearch on the two fields themselves. */
function matchesText(name: string, description: string | null, needle: string): boolean {
  if (needle === '') return true;
  if (normalizeSearch(name).includes(needle)) return true;
  return description !== null && normalizeSearch(description).includes(needle);
}
