// Kubernetes label-selector semantics over GitopsCluster labels (docs/configuration.md, "Targets chosen by cluster labels"): the
// same answers `kubectl get -l` gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  requirementProblem,
  selectorString,
  selectsLabels,
  type LabelSelector,
  type Labels,
} from '../../lib/pipeline/label-selector.js';

const PROD_EU: Labels = { tier: 'prod', region: 'eu' };
const PROD_US: Labels = { tier: 'prod', region: 'us', gpu: '' };
const STAGING: Labels = { tier: 'staging', region: 'eu' };
const UNLABELLED: Labels = {};

describe('label selectors', () => {
  const cases: [string, LabelSelector, Labels | undefined, boolean][] = [
    ['empty selects everything', {}, PROD_EU, true],
    ['empty selects an unlabelled cluster', {}, undefined, true],
    ['matchLabels: equal', { matchLabels: { tier: 'prod' } }, PROD_EU, true],
    ['matchLabels: other value', { matchLabels: { tier: 'prod' } }, STAGING, false],
    ['matchLabels: missing key', { matchLabels: { tier: 'prod' } }, UNLABELLED, false],
    ['matchLabels: every pair must hold', { matchLabels: { tier: 'prod', region: 'us' } }, PROD_EU, false],
    ['matchLabels: empty value matches an empty label', { matchLabels: { gpu: '' } }, PROD_US, true],
    ['matchLabels: empty value needs the key', { matchLabels: { gpu: '' } }, PROD_EU, false],
    [
      'In: one of the values',
      { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'ap'] }] },
      PROD_EU,
      true,
    ],
    [
      'In: none of the values',
      { matchExpressions: [{ key: 'region', operator: 'In', values: ['ap'] }] },
      PROD_EU,
      false,
    ],
    ['In: key absent', { matchExpressions: [{ key: 'zone', operator: 'In', values: [''] }] }, PROD_EU, false],
    [
      'NotIn: key absent counts',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      PROD_EU,
      true,
    ],
    [
      'NotIn: another value',
      { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['us'] }] },
      PROD_EU,
      true,
    ],
    [
      'NotIn: one of the values',
      { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu'] }] },
      PROD_EU,
      false,
    ],
    ['Exists: present with any value', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, PROD_US, true],
    ['Exists: absent', { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }, PROD_EU, false],
    ['DoesNotExist: absent', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, PROD_EU, true],
    ['DoesNotExist: present', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, PROD_US, false],
    [
      'matchLabels and matchExpressions together (AND)',
      { matchLabels: { tier: 'prod' }, matchExpressions: [{ key: 'region', operator: 'In', values: ['us'] }] },
      PROD_EU,
      false,
    ],
    [
      'several requirements, all holding',
      {
        matchLabels: { tier: 'prod' },
        matchExpressions: [
          { key: 'region', operator: 'NotIn', values: ['cn'] },
          { key: 'gpu', operator: 'Exists' },
        ],
      },
      PROD_US,
      true,
    ],
    ['no labels at all', { matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }, undefined, true],
    ['an inherited key is not a label', { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {}, false],
  ];
  for (const [name, selector, labels, selected] of cases) {
    it(name, () => assert.equal(selectsLabels(selector, labels), selected));
  }

  it('refuses requirements Kubernetes refuses', () => {
    assert.match(
      requirementProblem({ key: 'a', operator: 'In' }) ?? '',
      /needs at least one value for the operator In/,
    );
    assert.match(requirementProblem({ key: 'a', operator: 'NotIn', values: [] }) ?? '', /operator NotIn/);
    assert.match(
      requirementProblem({ key: 'a', operator: 'Exists', values: ['x'] }) ?? '',
      /must have no values for the operator Exists/,
    );
    assert.equal(requirementProblem({ key: 'a', operator: 'DoesNotExist' }), undefined);
    assert.equal(requirementProblem({ key: 'a', operator: 'In', values: ['x'] }), undefined);
  });

  it("is written as kubectl's -l syntax", () => {
    assert.equal(selectorString({}), '<everything>');
    assert.equal(
      selectorString({
        matchLabels: { tier: 'prod', app: 'web' },
        matchExpressions: [
          { key: 'region', operator: 'In', values: ['us', 'eu'] },
          { key: 'zone', operator: 'NotIn', values: ['a'] },
          { key: 'gpu', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
      'app=web,tier=prod,region in (eu,us),zone notin (a),gpu,!legacy',
    );
  });
});
