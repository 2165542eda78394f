/**
 * The service's types, inferred from the API's own zod schemas (type imports only: nothing of
 * zod runs). This file is the repository's view; the package build replaces it with the same
 * names generated from the schemas' JSON Schema, and fails unless both agree both ways.
 */
import type { z } from 'zod';
import type { SERVICE_SCHEMAS } from '../scripts/service-schemas';

type Table = typeof SERVICE_SCHEMAS;

/** Each service type by name, as its table entry reads the schema. */
export type ServiceTypes = {
  [K in keyof Table]: Table[K]['io'] extends 'input' ? z.input<Table[K]['schema']> : z.output<Table[K]['schema']>;
};
