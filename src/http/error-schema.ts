// The error body of every /v1 route (architecture.md), for route response schemas.
import { Type } from 'typebox';
import { nameSchema } from './schema-names.ts';

const ValidationError = nameSchema(
  'ValidationError',
  Type.Object(
    {
      field: Type.String({ description: 'Dotted path, `[i]` for array items; empty for the whole body.' }),
      message: Type.String(),
    },
    { description: 'One problem of a body, query or path parameter.' },
  ),
);

export const ErrorResponse = nameSchema(
  'Error',
  Type.Object(
    {
      statusCode: Type.Integer(),
      message: Type.String(),
      key: Type.String({ description: 'Stable machine-readable key (the catalogue of errors).' }),
      errors: Type.Optional(
        Type.Array(ValidationError, {
          description:
            'Validation errors (invalid_body, invalid_query, invalid_parameter): every problem found.',
        }),
      ),
    },
    { description: 'Every error of /v1/*; the X-Error-Id header identifies it in the server log.' },
  ),
);
