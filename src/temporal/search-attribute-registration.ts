import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { arborSearchAttributes } from '../shared/search-attributes.js';

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
const indexedValueTypes = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
} as const;
const grpcAlreadyExists = 6;
const grpcUnimplemented = 12;

export class SearchAttributesMissingError extends Error {
  override readonly name = 'SearchAttributesMissingError';
}

/**
 * Makes sure the namespace has Arbor's search attributes, adding the missing ones. Idempotent. Where the server
 * refuses (no permission, Temporal Cloud), throws an error naming the command that adds them.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((attribute) => [attribute.name, indexedValueTypes[attribute.type]])),
    });
  } catch (error) {
    if (isAlreadyExists(error)) return [];
    throw new SearchAttributesMissingError(
      `Namespace "${namespace}" lacks Arbor's search attributes (${missing.map((a) => a.name).join(', ')}) ` +
        `and this worker could not add them (${(error as Error).message}). Ask an administrator to run:\n` +
        missing
          .map((a) => `  temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`)
          .join('\n') +
        `\n(on Temporal Cloud: tcld namespace search-attributes add --namespace ${namespace} ` +
        missing.map((a) => `--search-attribute "${a.name}=${a.type}"`).join(' ') +
        ')',
    );
  }
  return missing.map((attribute) => attribute.name);
}

/** False when the server has no custom search attributes at all (the time-skipping test server). */
export async function supportsSearchAttributes(connection: Connection, namespace: string): Promise<boolean> {
  try {
    await connection.operatorService.listSearchAttributes({ namespace });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === grpcUnimplemented) return false;
    throw error;
  }
}

export async function missingSearchAttributes(connection: Connection, namespace: string) {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return arborSearchAttributes.filter((attribute) => !(attribute.name in (customAttributes ?? {})));
}

function isAlreadyExists(error: unknown): boolean {
  return (error as { code?: number }).code === grpcAlreadyExists;
}
