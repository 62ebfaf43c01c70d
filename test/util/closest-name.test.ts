// "Did you mean …?": which known name a mistyped one is near, with the default limit and with a given one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { closestName, editDistance, editDistanceWithin } from '../../lib/util/closest-name.js';

describe('closestName', () => {
  const contextKeys = ['eksClusterArns', 'assumeRoleArns', 'region', 'retentionDays'];
  const fields = ['clusterRef', 'namespace', 'kind', 'id'];
  const rows: { name: string; known: readonly string[]; maxEdits?: number; expected: string | undefined }[] = [
    // The default: a third of the name's length, and a name cut short.
    { name: 'eksClusterArn', known: contextKeys, expected: 'eksClusterArns' },
    { name: 'EKSClusterARNs', known: contextKeys, expected: 'eksClusterArns' },
    { name: 'assumeRoleArn', known: contextKeys, expected: 'assumeRoleArns' },
    { name: 'regoin', known: contextKeys, expected: 'region' },
    { name: 'retention', known: contextKeys, expected: 'retentionDays' },
    { name: 'vpc', known: contextKeys, expected: undefined },
    { name: 'tableName', known: contextKeys, expected: undefined },
    // A given limit: that many edits ignoring case, and no name cut short.
    { name: 'clusterref', known: fields, maxEdits: 2, expected: 'clusterRef' },
    { name: 'nmespac', known: fields, maxEdits: 2, expected: 'namespace' },
    { name: 'nmspac', known: fields, maxEdits: 2, expected: undefined },
    { name: 'cluster', known: fields, maxEdits: 2, expected: undefined },
    { name: 'knd', known: fields, maxEdits: 1, expected: 'kind' },
    { name: 'kn', known: fields, maxEdits: 1, expected: undefined },
    // A name every character of which would change is no typo.
    { name: 'ab', known: fields, maxEdits: 2, expected: undefined },
    { name: 'prod-e', known: ['dev', 'prod-eu', 'prod-us'], maxEdits: 1, expected: 'prod-eu' },
    { name: 'prod-ue', known: ['dev', 'prod-eu'], maxEdits: 1, expected: undefined },
    { name: 'anything', known: [], maxEdits: 2, expected: undefined },
  ];
  for (const row of rows) {
    it(`${row.name} among ${row.known.join(', ') || 'nothing'}${row.maxEdits ? ` within ${row.maxEdits}` : ''}`, () =>
      assert.equal(
        closestName(row.name, row.known, row.maxEdits === undefined ? {} : { maxEdits: row.maxEdits }),
        row.expected,
      ));
  }

  it('prefers the nearest of several', () => {
    assert.equal(closestName('prod-eux', ['prod-e', 'prod-eu'], { maxEdits: 2 }), 'prod-eu');
  });
});

describe('editDistanceWithin', () => {
  it('is the edit distance when within the limit, one beyond it otherwise', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, limit) => {
        assert.equal(editDistanceWithin(a, b, limit), Math.min(editDistance(a, b), limit + 1));
      }),
      { numRuns: 2000 },
    );
  });
});
