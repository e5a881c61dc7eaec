// The part of `negotiator` 1.x that compression.ts uses (the package ships no types, and
// @types/negotiator describes 0.6, without the `preferred` option).
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    encodings(available: readonly string[], options?: { preferred?: readonly string[] }): string[];
  }
}
