// DynamoDB attribute values as JSON, in DynamoDB's own wire format (`{"S": "…"}`, binary as base64), so that a
// backup line reads as what DynamoDB itself sends. The AWS SDK hands binary values over as bytes, which JSON cannot
// hold; everything else is already JSON.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';

export type JsonAttributeValue =
  | { S: string }
  | { N: string }
  | { B: string }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: string[] }
  | { M: Record<string, JsonAttributeValue> }
  | { L: JsonAttributeValue[] }
  | { NULL: true }
  | { BOOL: boolean };

export type JsonItem = Record<string, JsonAttributeValue>;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const number = z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'a number');

export const jsonAttributeValueSchema: z.ZodType<JsonAttributeValue> = z.lazy(() =>
  z.union([
    z.strictObject({ S: z.string() }),
    z.strictObject({ N: number }),
    z.strictObject({ B: base64 }),
    z.strictObject({ SS: z.array(z.string()) }),
    z.strictObject({ NS: z.array(number) }),
    z.strictObject({ BS: z.array(base64) }),
    z.strictObject({ M: z.record(z.string(), jsonAttributeValueSchema) }),
    z.strictObject({ L: z.array(jsonAttributeValueSchema) }),
    z.strictObject({ NULL: z.literal(true) }),
    z.strictObject({ BOOL: z.boolean() }),
  ]),
);

export function toJsonItem(item: Record<string, AttributeValue>): JsonItem {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, toJson(value)]));
}

export function fromJsonItem(item: JsonItem): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, fromJson(value)]));
}

function toJson(value: AttributeValue): JsonAttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.SS !== undefined) return { SS: [...value.SS] };
  if (value.NS !== undefined) return { NS: [...value.NS] };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.M !== undefined) return { M: toJsonItem(value.M) };
  if (value.L !== undefined) return { L: value.L.map(toJson) };
  if (value.NULL !== undefined) return { NULL: true };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  throw new Error(`an attribute value of an unknown type: ${Object.keys(value).join(', ')}`);
}

function fromJson(value: JsonAttributeValue): AttributeValue {
  if ('S' in value) return { S: value.S };
  if ('N' in value) return { N: value.N };
  if ('B' in value) return { B: Buffer.from(value.B, 'base64') };
  if ('SS' in value) return { SS: value.SS };
  if ('NS' in value) return { NS: value.NS };
  if ('BS' in value) return { BS: value.BS.map((text) => Buffer.from(text, 'base64')) };
  if ('M' in value) return { M: fromJsonItem(value.M) };
  if ('L' in value) return { L: value.L.map(fromJson) };
  if ('NULL' in value) return { NULL: true };
  return { BOOL: value.BOOL };
}
