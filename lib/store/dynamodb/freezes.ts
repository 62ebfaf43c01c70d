// Stop switches (`pipelinectl freeze`, docs/freeze.md): one item per (scope, environment), all in one partition of
// their own, so the verifier reads every switch of the installation with one Query and a deleted pipeline does not
// take a switch set on it along (it applies again if the pipeline comes back).
//
//   pk `FREEZE`, sk `{scope}#{env}`: scope `*` (the installation) or `{ns}/{name}` (a pipeline), env `*` (every
//   environment) or the environment's name, each part URI-encoded with `*` encoded too, so `*` only ever means "all".
//
// Setting replaces the item of its (scope, env). A switch with `until` expires by TTL a retention after it ends, so
// an expired one can be listed until then: the decision ignores switches whose `until` has passed.
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
// zod/mini, not zod's classic API, as in every module of the store: the classic API costs a cold start about 65 KiB
// more to compile, and the receiver's bundle holds the store modules its routes call (`createReceiverStore`), where
// one classic import would bring all of it back (test/infra/zod-mini.test.ts).
import * as z from 'zod/mini';
import { en as englishLocale } from 'zod/v4/locales';
import type { FreezeScope, FreezeSwitch } from '../../pipeline/freeze.js';
import { pipelineKeyOf } from '../../pipeline/model.js';
import { issueText } from '../../util/zod-issue.js';
import type { Freezes } from '../port.js';
import { queryAll } from './query.js';
import { expiresAfter, TABLE_SCHEMA, type TableContext } from './table.js';

const ENTITY = 'freeze';
const FREEZE_PARTITION = 'FREEZE';
/** Stands for "every pipeline" or "every environment" in a sort key: no encoded name can be `*`. */
const ALL = '*';

const part = (value: string): string => encodeURIComponent(value).replaceAll('*', '%2A');

/** The sort-key prefix of one scope's switches. */
function freezeScopePrefix(scope: FreezeScope): string {
  const name = 'installation' in scope ? ALL : `${part(scope.pipeline.namespace)}/${part(scope.pipeline.name)}`;
  return `${name}#`;
}

export function freezeKey(scope: FreezeScope, env: string | undefined): { pk: string; sk: string } {
  return { pk: FREEZE_PARTITION, sk: `${freezeScopePrefix(scope)}${env === undefined ? ALL : part(env)}` };
}

const windowSchema = z.object({
  from: z.string(),
  to: z.string(),
  timeZone: z.string(),
  reason: z.optional(z.string()),
});

/** A stored switch, as this module writes it; anything else in the partition is refused, never read as no stop. */
const itemSchema = z.object({
  sk: z.string(),
  pipeline: z.optional(z.object({ namespace: z.string(), name: z.string() })),
  env: z.optional(z.string()),
  reason: z.string(),
  by: z.string(),
  at: z.string(),
  until: z.optional(z.string()),
  windows: z.optional(z.array(windowSchema)),
});

/**
 * zod's English messages (`expected string, received undefined`), which the error below quotes. zod/mini loads no
 * locale of its own (its issues would all read `Invalid input`), and setting one for the whole process from a store
 * module would be a surprise, so this parse asks for it.
 */
const englishIssueMessages = englishLocale().localeError;

export class DynamoFreezes implements Freezes {
  constructor(private readonly table: TableContext) {}

  async setFreeze(freeze: FreezeSwitch): Promise<void> {
    const until = freeze.until === undefined ? Number.NaN : Date.parse(freeze.until);
    await this.table.documents.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...freezeKey(freeze.scope, freeze.env),
          entity: ENTITY,
          ...('pipeline' in freeze.scope ? { pipeline: pipelineKeyOf(freeze.scope.pipeline) } : {}),
          env: freeze.env,
          reason: freeze.reason,
          by: freeze.by,
          at: freeze.at,
          until: freeze.until,
          windows: freeze.windows,
          // An ended switch stops nothing (the decision reads `until`); DynamoDB removes it a retention later.
          ...(Number.isNaN(until)
            ? {}
            : { [TABLE_SCHEMA.ttlAttribute]: expiresAfter(new Date(until), this.table.retentionDays) }),
        },
      }),
    );
  }

  async clearFreezes(scope: FreezeScope, env?: string): Promise<FreezeSwitch[]> {
    const doomed =
      env === undefined
        ? (await this.#query(freezeScopePrefix(scope))).map((item) => ({ pk: FREEZE_PARTITION, sk: String(item.sk) }))
        : [freezeKey(scope, env)];
    const removed: FreezeSwitch[] = [];
    for (const key of doomed) {
      // What the delete itself removed: a switch cleared by someone else meanwhile is not reported twice.
      const result = await this.table.documents.send(
        new DeleteCommand({ TableName: this.table.tableName, Key: key, ReturnValues: 'ALL_OLD' }),
      );
      if (result.Attributes) removed.push(freezeSwitch(result.Attributes));
    }
    return removed;
  }

  async listFreezes(): Promise<FreezeSwitch[]> {
    return (await this.#query()).map(freezeSwitch);
  }

  async #query(prefix?: string): Promise<Record<string, unknown>[]> {
    return queryAll(this.table, {
      KeyConditionExpression: prefix === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': FREEZE_PARTITION, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
      ConsistentRead: true,
    });
  }
}

function freezeSwitch(item: Record<string, unknown>): FreezeSwitch {
  const parsed = itemSchema.safeParse(item, { error: englishIssueMessages });
  if (!parsed.success) {
    const problem = issueText(parsed.error, 'item');
    throw new Error(`the stop switch ${String(item.sk)} in the table cannot be read (${problem})`);
  }
  const { pipeline, env, reason, by, at, until, windows } = parsed.data;
  const freeze: FreezeSwitch = {
    scope: pipeline ? { pipeline: pipelineKeyOf(pipeline) } : { installation: true },
    reason,
    by,
    at,
  };
  if (env !== undefined) freeze.env = env;
  if (until !== undefined) freeze.until = until;
  if (windows !== undefined) {
    freeze.windows = windows.map((window) => ({
      from: window.from,
      to: window.to,
      timeZone: window.timeZone,
      ...(window.reason === undefined ? {} : { reason: window.reason }),
    }));
  }
  return freeze;
}
