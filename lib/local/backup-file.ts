// The backup file of a data directory (`pipelinectl backup`, `restore`): JSON lines, written 0600, since it holds the
// master key and the Secrets.
//
//   {"format":"pipelinectl-backup","version":1,"tableName":…,"items":N,"createdAt":…,"files":[…],"sha256":…}
//   {"file":"master-key.json","content":{…}}        one line per data-directory file it holds
//   {"file":"secrets.json","content":{…}}
//   {"item":{"pk":{"S":…},…}}                       one line per item of the table, in DynamoDB's JSON
//
// `sha256` is the digest of every line after the header (each with its newline). A file cut short, edited or mixed
// with another is refused as a whole before anything is written: the digest, the item count and each line's shape
// are checked when it is read.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { masterKeysFromValues } from '../secrets/master-keys.js';
import { issueText } from '../util/zod-issue.js';
import { SECRET_PURPOSES } from '../secrets/tags.js';
import { jsonAttributeValueSchema, type JsonItem } from './attribute-json.js';
import { DATA_FILES, type StoredSecret } from './data-dir.js';

export const BACKUP_FORMAT = 'pipelinectl-backup';
export const BACKUP_VERSION = 1;

/** The largest backup file read: far above any local data directory, and a bound on the memory a restore takes. */
export const MAX_BACKUP_BYTES = 256 * 1024 * 1024;

const masterKeySchema = z.strictObject({ current: z.string().min(1), previous: z.string().min(1).optional() });

const secretsSchema = z.record(
  z.string(),
  z.strictObject({
    values: z.record(z.string(), z.string()),
    purposes: z.array(z.enum(SECRET_PURPOSES)),
  }),
);

const headerSchema = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  tableName: z.string().min(1),
  items: z.number().int().nonnegative(),
  createdAt: z.iso.datetime(),
  files: z.array(z.enum([DATA_FILES.masterKey, DATA_FILES.secrets])),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const itemSchema = z
  .record(z.string(), jsonAttributeValueSchema)
  .refine((item) => 'S' in (item.pk ?? {}) && 'S' in (item.sk ?? {}), 'an item needs string keys pk and sk');

const lineSchema = z.union([
  z.strictObject({ file: z.literal(DATA_FILES.masterKey), content: masterKeySchema }),
  z.strictObject({ file: z.literal(DATA_FILES.secrets), content: secretsSchema }),
  z.strictObject({ item: itemSchema }),
]);

export type BackupHeader = z.infer<typeof headerSchema>;

export interface BackupContents {
  tableName: string;
  createdAt: string;
  /** master-key.json as stored, if the data directory has one (not with PIPELINES_HMAC_KEY). */
  masterKey?: Record<string, string>;
  /** secrets.json as stored, if any. */
  secrets?: Record<string, StoredSecret>;
  items: JsonItem[];
}

/** A backup file could not be read as one; the message names the file and the line. */
export class BackupFileError extends Error {
  override name = 'BackupFileError';
}

export function formatBackup(contents: BackupContents): string {
  const lines: string[] = [];
  const files: BackupHeader['files'] = [];
  if (contents.masterKey) {
    files.push(DATA_FILES.masterKey);
    lines.push(JSON.stringify({ file: DATA_FILES.masterKey, content: contents.masterKey }));
  }
  if (contents.secrets) {
    files.push(DATA_FILES.secrets);
    lines.push(JSON.stringify({ file: DATA_FILES.secrets, content: contents.secrets }));
  }
  for (const item of contents.items) lines.push(JSON.stringify({ item }));
  const body = lines.map((line) => `${line}\n`).join('');
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    tableName: contents.tableName,
    items: contents.items.length,
    createdAt: contents.createdAt,
    files,
    sha256: sha256(body),
  };
  return `${JSON.stringify(header)}\n${body}`;
}

/** Reads a whole backup, or throws a BackupFileError saying what is wrong with it (`where` names the file). */
export function parseBackup(text: string, where: string): BackupContents & { header: BackupHeader } {
  const refuse = (reason: string) => new BackupFileError(`${where} is not a usable backup: ${reason}`);
  const newline = text.indexOf('\n');
  if (newline < 0) throw refuse('it has no header line');
  const header = headerSchema.safeParse(parseLine(text.slice(0, newline)));
  if (!header.success) {
    throw refuse(
      `its first line is not a ${BACKUP_FORMAT} version ${BACKUP_VERSION} header (${issueText(header.error)})`,
    );
  }
  const body = text.slice(newline + 1);
  if (sha256(body) !== header.data.sha256) {
    throw refuse('its contents do not match the digest in its header (cut short, or changed after it was written)');
  }
  const contents: BackupContents = { tableName: header.data.tableName, createdAt: header.data.createdAt, items: [] };
  const lines = body.split('\n');
  if (lines.pop() !== '') throw refuse('its last line is not complete');
  lines.forEach((text, index) => {
    const line = lineSchema.safeParse(parseLine(text));
    if (!line.success) throw refuse(`line ${index + 2}: ${issueText(line.error)}`);
    const { data } = line;
    if ('item' in data) contents.items.push(data.item);
    else if (data.file === DATA_FILES.masterKey) {
      masterKeysFromValues(data.content, `line ${index + 2}`);
      contents.masterKey = data.content;
    } else contents.secrets = data.content;
  });
  if (contents.items.length !== header.data.items) {
    throw refuse(`it holds ${contents.items.length} items, its header says ${header.data.items}`);
  }
  const files = [contents.masterKey && DATA_FILES.masterKey, contents.secrets && DATA_FILES.secrets].filter(Boolean);
  if (files.join() !== header.data.files.join()) {
    throw refuse(
      `it holds ${files.join(', ') || 'no files'}, its header says ${header.data.files.join(', ') || 'none'}`,
    );
  }
  return { ...contents, header: header.data };
}

/** `12 items, master-key.json and secrets.json`: what a backup holds, for a person. */
export function describeContents(items: number, files: readonly string[]): string {
  const parts = [`${items} items`, ...files];
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}` : (parts[0] ?? '');
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
