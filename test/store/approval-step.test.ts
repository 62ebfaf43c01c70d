// What one approval request, approval or rejection does to a marker: the rule both stores apply.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApprovalMarker } from '../../lib/decision/index.js';
import { approvalBy, approvalStep, rejectStep, requestStep } from '../../lib/store/approval-step.js';

const OLD = 'v1.0.0@sha1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NEW = 'v1.1.0@sha1:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const AT = '2026-01-01T00:00:00.000Z';

const waiting = (revision: string, extra: Partial<ApprovalMarker> = {}): ApprovalMarker => ({
  env: 'prod',
  revision,
  requestedAt: AT,
  ...extra,
});

describe('requestStep', () => {
  const cases: Array<[string, ApprovalMarker | undefined, string, string]> = [
    ['no marker: request', undefined, NEW, 'request'],
    ['waits for this revision: unchanged', waiting(NEW), NEW, 'unchanged'],
    ['waits for an older revision: request', waiting(OLD), NEW, 'request'],
    ['waits for a newer revision: superseded', waiting(NEW), OLD, 'superseded'],
  ];
  for (const [name, current, revision, expected] of cases) {
    it(name, () => assert.equal(requestStep(current, revision), expected));
  }
});

describe('rejectStep', () => {
  const marker = waiting(NEW);
  const cases: Array<[string, ApprovalMarker | undefined, string, string | ApprovalMarker]> = [
    ['no marker', undefined, NEW, 'not-waiting'],
    ['another revision', waiting(OLD), NEW, 'not-waiting'],
    ['approved', waiting(NEW, { approvedAt: AT, approvedBy: 'ann' }), NEW, 'already-approved'],
    ['rejected', waiting(NEW, { rejectedAt: AT, rejectedBy: 'bob' }), NEW, 'already-rejected'],
    ['waiting: the marker to reject', marker, NEW, marker],
  ];
  for (const [name, current, revision, expected] of cases) {
    it(name, () => assert.deepEqual(rejectStep(current, revision), expected));
  }
});

describe('approvalStep', () => {
  const ann = approvalBy('ann');
  const cases: Array<[string, ApprovalMarker | undefined, number, string]> = [
    ['no marker', undefined, 1, 'not-waiting'],
    ['policy of one', waiting(NEW), 1, 'approve'],
    ['first of two', waiting(NEW), 2, 'count'],
    ['second of two', waiting(NEW, { approvals: [{ by: 'bob', at: AT }] }), 2, 'count-and-approve'],
    ['the same approver again', waiting(NEW, { approvals: [{ by: 'ann', at: AT }] }), 2, 'already-counted'],
    [
      'counted before and the policy now asks fewer',
      waiting(NEW, {
        approvals: [
          { by: 'ann', at: AT },
          { by: 'bob', at: AT },
        ],
      }),
      2,
      'approve-counted',
    ],
    ['approved', waiting(NEW, { approvedAt: AT }), 2, 'already-approved'],
    ['rejected', waiting(NEW, { rejectedAt: AT }), 2, 'rejected'],
  ];
  for (const [name, current, required, expected] of cases) {
    it(name, () => assert.equal(approvalStep(current, NEW, ann, required), expected));
  }
});
