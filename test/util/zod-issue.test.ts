// How a zod issue reads: field names, never values; the same for classic zod and zod/mini schemas.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import * as zm from 'zod/mini';
import {
  customIssue,
  describeIssue,
  fieldProblems,
  issueFields,
  issueLines,
  issueText,
  knownKeysAt,
  schemaMessage,
} from '../../lib/util/zod-issue.js';

const Classic = z.object({
  type: z.enum(['a', 'b']),
  name: z.string().min(1),
  count: z.number().int().min(1),
  labels: z.record(z.string(), z.string()),
});
const Mini = zm.object({ name: zm.string().check(zm.minLength(1)), count: zm.number() });
const Kinds = z.discriminatedUnion('type', [
  z.object({ type: z.literal('poll') }),
  z.object({ type: z.literal('promote'), env: z.string() }),
]);

const valid = { type: 'a', name: 'x', count: 1, labels: {} };

function classic(input: unknown, options?: Parameters<typeof describeIssue>[2]): string {
  const parsed = Classic.safeParse(input);
  assert.ok(!parsed.success);
  return describeIssue(parsed.error, input, options);
}

describe('describeIssue', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a missing field', { ...valid, name: undefined }, 'name is missing'],
    ['a field of the wrong type', { ...valid, count: 'secret-value' }, 'count must be a number'],
    ['a whole number expected', { ...valid, count: 1.5 }, 'count must be an integer'],
    ['an empty string', { ...valid, name: '' }, 'name must not be empty'],
    ['a number too small', { ...valid, count: 0 }, 'count is too small'],
    ['a value not in the enum', { ...valid, type: 'secret-value' }, 'type is not an allowed value'],
    ['not an object', 'secret-value', 'value must be an object'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const text = classic(input);
      assert.equal(text, expected);
      assert.ok(!text.includes('secret-value'));
    });
  }
  it('stops at a map whose keys come from the input', () => {
    const input = { ...valid, labels: { 'secret-key': 5 } };
    assert.equal(classic(input, { dynamicKeysAt: ['labels'] }), 'labels has an invalid entry');
  });
  it('names the whole input as told', () => {
    assert.equal(classic(7, { whole: 'message' }), 'message must be an object');
  });
  it('a discriminator names the known values', () => {
    const wrong = { type: 'secret-value' };
    const parsed = Kinds.safeParse(wrong);
    assert.ok(!parsed.success);
    const discriminator = { field: 'type', values: ['poll', 'promote'] };
    assert.equal(describeIssue(parsed.error, wrong, { discriminator }), 'type is not one of poll, promote');
  });
  it('reads a zod/mini error alike', () => {
    const input = { name: '', count: 1 };
    const parsed = Mini.safeParse(input);
    assert.ok(!parsed.success);
    assert.equal(describeIssue(parsed.error, input), 'name must not be empty');
  });
});

describe('issueText', () => {
  it('the path and zod message', () => {
    const parsed = Classic.safeParse({ ...valid, name: 5 });
    assert.ok(!parsed.success);
    assert.match(issueText(parsed.error), /^name: /);
  });
  it('at the root: the name given for the whole, or the message alone', () => {
    const parsed = Classic.safeParse(7);
    assert.ok(!parsed.success);
    assert.match(issueText(parsed.error, 'item'), /^item: /);
    assert.equal(issueText(parsed.error), parsed.error.issues[0]?.message);
  });
});

/** The error of parsing `input` with `schema`, which must fail. */
function errorOf(schema: z.ZodType, input: unknown): z.ZodError {
  const parsed = schema.safeParse(input);
  assert.ok(!parsed.success);
  return parsed.error;
}

describe('issueFields', () => {
  it('every wrong field once, never a value', () => {
    const Env = zm.object({ TABLE: zm.string(), QUEUE: zm.url(), LIMIT: zm.string().check(zm.minLength(3)) });
    const parsed = Env.safeParse({ QUEUE: 'secret-value', LIMIT: 'x' });
    assert.ok(!parsed.success);
    const fields = issueFields(parsed.error);
    assert.deepEqual(fields, ['TABLE', 'QUEUE', 'LIMIT']);
  });
});

describe('issueLines', () => {
  it('every issue as path: the schema message', () => {
    const Settings = z.strictObject({
      url: z.url({ error: 'must be a URL' }),
      news: z.array(z.enum(['a', 'b'], { error: 'must be a or b' })),
    });
    const lines = issueLines(errorOf(Settings, { url: 'secret-value', news: ['a', 'secret-value'] }));
    assert.deepEqual(lines, ['url: must be a URL', 'news.1: must be a or b']);
  });
});

describe('fieldProblems', () => {
  const Document = z.strictObject({
    spec: z.strictObject({ interval: z.string(), replicas: z.number(), mode: z.enum(['x', 'y']) }),
  });
  it('names each field in YAML terms, with the type found and never the value', () => {
    const input = { spec: { interval: 5, mode: 'secret-value', extra: true, other: 1 } };
    const problems = fieldProblems(errorOf(Document, input), input);
    assert.deepEqual(problems, [
      { path: ['spec', 'interval'], message: 'must be a string (found a number)' },
      { path: ['spec', 'replicas'], message: 'is required' },
      { path: ['spec', 'mode'], message: 'Invalid option: expected one of "x"|"y"' },
      { path: ['spec', 'extra'], message: 'unknown field "extra"' },
      { path: ['spec', 'other'], message: 'unknown field "other"' },
    ]);
    assert.ok(!JSON.stringify(problems).includes('secret-value'));
  });
  it('words an unknown field as the caller says', () => {
    const input = { spec: { interval: '1m', replicas: 1, mode: 'x', extra: true } };
    const problems = fieldProblems(errorOf(Document, input), input, (path, key) => `${path.join('.')} has no ${key}`);
    assert.deepEqual(problems, [{ path: ['spec', 'extra'], message: 'spec has no extra' }]);
  });
  it('a mapping where a scalar was expected, and a list where a mapping was', () => {
    const input = { spec: ['secret-value'] };
    assert.deepEqual(fieldProblems(errorOf(Document, input), input), [
      { path: ['spec'], message: 'must be a mapping (found a list)' },
    ]);
  });
});

describe('customIssue', () => {
  const isMarked = (params: Record<string, unknown>): params is { marked: string } => typeof params.marked === 'string';
  const Checked = z.object({
    items: z.array(
      z.string().superRefine((value, context) => {
        if (value.startsWith('bad')) context.addIssue({ code: 'custom', message: 'bad', params: { marked: value } });
      }),
    ),
    count: z.number(),
  });
  it('the first issue a check raised with its params, at its field', () => {
    const error = errorOf(Checked, { items: ['ok', 'bad-1', 'bad-2'], count: 'x' });
    assert.deepEqual(customIssue(error, isMarked), { field: 'items.1', params: { marked: 'bad-1' } });
  });
  it('none when no check raised one', () => {
    assert.equal(customIssue(errorOf(Checked, { items: [], count: 'x' }), isMarked), undefined);
  });
});

describe('schemaMessage', () => {
  it("the first issue's own message, without the field inside the value", () => {
    const List = z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' });
    assert.equal(schemaMessage(errorOf(List, [1, 2])), 'must be a list of strings');
  });
});

describe('knownKeysAt', () => {
  const Target = z.strictObject({ namespace: z.string(), clusterRef: z.strictObject({ name: z.string() }).optional() });
  const Document = z.strictObject({
    spec: z
      .strictObject({
        environments: z.array(z.strictObject({ name: z.string(), targets: z.array(Target) })),
        source: z.union([z.strictObject({ url: z.string() }), z.strictObject({ bucket: z.string() })]).optional(),
        labels: z.record(z.string(), z.strictObject({ value: z.string() })).default({}),
        count: z.string().transform(Number),
      })
      .superRefine(() => undefined),
  });
  const rows: { path: PropertyKey[]; expected: string[] }[] = [
    { path: [], expected: ['spec'] },
    { path: ['spec'], expected: ['environments', 'source', 'labels', 'count'] },
    { path: ['spec', 'environments', 0], expected: ['name', 'targets'] },
    { path: ['spec', 'environments', 3, 'targets', 1], expected: ['namespace', 'clusterRef'] },
    { path: ['spec', 'environments', 0, 'targets', 0, 'clusterRef'], expected: ['name'] },
    { path: ['spec', 'source'], expected: ['url', 'bucket'] },
    { path: ['spec', 'labels', 'tier'], expected: ['value'] },
    { path: ['spec', 'count'], expected: [] },
    { path: ['spec', 'nothing'], expected: [] },
  ];
  for (const row of rows) {
    it(`the fields at ${row.path.join('.') || 'the root'}`, () =>
      assert.deepEqual(knownKeysAt(Document, row.path), row.expected));
  }
});
