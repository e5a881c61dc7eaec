// Reading the OpenAPI document in tests as a reader of it would: $refs to components.schemas
// followed and allOf parts merged.
export function resolve(doc: any, schema: any): any {
  if (schema?.$ref) return resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()]);
  if (!schema?.allOf) return schema;
  const parts = schema.allOf.map((part: any) => resolve(doc, part));
  return {
    type: 'object',
    required: parts.flatMap((part: any) => part.required ?? []),
    properties: Object.assign({}, ...parts.map((part: any) => part.properties)),
  };
}
