// Wire schema of the received NF-e detail (contract 2.7 + 2.8), generated from the field lists the
// mapping uses; it documents the answers nfe-map.ts receivedNfeDetailBody writes. Provider values
// are declared without a type: a serialiser of this schema writes them as JSON.stringify does,
// exactly as mapped (detail.test.ts holds the answers to it), where a typed schema would coerce.
import { type TObject, type TSchema, Type } from 'typebox';
import { nullable } from '../../http/nullable.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { nfeCommonFields, text } from './nfe-schema.ts';
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS } from './provider-fields.ts';

const providerValue = Type.Unknown({
  description:
    "The provider's text (string or null; numbers as their source text); array fields keep their elements.",
});

const group = (fields: string[]) =>
  Type.Object(Object.fromEntries(fields.map((field) => [field, Type.Optional(providerValue)])), {
    description: 'Fields the provider did not send are absent; nulls and empty arrays are kept.',
  });

const groups = (definition: Record<string, string[]>): Record<string, TObject> =>
  Object.fromEntries(Object.entries(definition).map(([name, fields]) => [name, group(fields)]));

const AdditionalFields = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Provider fields no group names, with their original names and JSON types.',
});

const Item = Type.Object({ ...groups(ITEM_GROUPS), additional_fields: AdditionalFields });

const Invoice = Type.Object({
  ...groups(DOCUMENT_GROUPS),
  items: Type.Optional(nullable(Type.Array(Item))),
  additional_fields: AdditionalFields,
});

const detailFields: Record<string, TSchema> = {
  ...nfeCommonFields,
  recipient: Type.Object({ cnpj: text, cpf: text }),
  invoice: nullable(Invoice, {
    description: 'The full document grouped by subject; null when the provider holds only the summary.',
  }),
  protocol: nullable(group(PROTOCOL_FIELDS)),
  processing: Type.Object({ return_in_progress: Type.Boolean() }),
};

export const NfeDetailResponse = nameSchema('NfeDetail', Type.Object(detailFields));
