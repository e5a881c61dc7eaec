// Names of the resources in the OpenAPI document. A schema named here is written once under
// `components.schemas` and referenced by `$ref` wherever a route's body or answer uses it, so
// generated clients get named types. The name is a symbol on the schema object: the validator
// and the serialiser never see it and keep compiling the route's inline schema as before.
// TypeBox keeps symbols when it copies a schema (Type.Optional), so an optional use is named too.
const NAME = Symbol('OpenAPI component name');
const named = new Map<string, object>();

export const componentRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Gives `schema` a component name; one schema per name. */
export function nameSchema<T extends object>(name: string, schema: T): T {
  const known = named.get(name);
  if (known && known !== schema) throw new Error(`OpenAPI: two schemas are named ${name}`);
  named.set(name, schema);
  (schema as Record<symbol, string>)[NAME] = name;
  return schema;
}

export const nameOf = (schema: unknown): string | undefined =>
  schema && typeof schema === 'object' ? (schema as Record<symbol, string>)[NAME] : undefined;

/** A plain copy of `schema` whose named parts are `$ref`s (the root too, unless `keepRoot`). */
export function referenced(schema: unknown, keepRoot = false): any {
  const name = keepRoot ? undefined : nameOf(schema);
  if (name) return componentRef(name);
  if (Array.isArray(schema)) return schema.map((item) => referenced(item));
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, referenced(value)]));
}

/** `components.schemas`: every named schema, in name order, its own named parts referenced. */
export function componentSchemas(): Record<string, object> {
  return Object.fromEntries(
    [...named.keys()].sort().map((name) => [name, referenced(named.get(name), true)]),
  );
}
