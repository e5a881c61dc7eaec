// The error body of every /v1 route (architecture.md), for route response schemas.
import { Type } from 'typebox';

export const ErrorResponse = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  key: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
});
