// How a zod issue reads: field names, never values; the same for classic zod and zod/mini schemas.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import * as zm from 'zod/mini';
import { describeIssue, issueText } from '../../lib/util/zod-issue.js';

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
