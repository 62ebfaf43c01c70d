// The external-service strategy in the decision (docs/external-service.md): a promotion records what the environment
// serves; until its first one, the revision every target of it runs healthily is served (`serve-current`), so that
// an input provider set up on a running environment moves nothing. Time is the fixtures' NOW, never the clock.
import { describe } from 'node:test';
import {
  approved,
  externalService,
  healthy,
  manualExternalService,
  minutesFromNow,
  pipeline,
  record,
  runRows,
  unsettled,
  type EnvironmentSpec,
} from './fixtures.js';

const DEV = 'flux-system/dev apps';
const PROD = 'flux-system/prod apps';
const PROD_US = 'flux-system/prod-us apps';

function served(prod: Partial<EnvironmentSpec> = {}) {
  return pipeline({
    promotion: externalService,
    environments: [
      { name: 'dev', targets: [DEV] },
      { name: 'prod', targets: [PROD, PROD_US], ...prod },
    ],
  });
}

const NEW = '6.5.0';
const OLD = '6.4.0';
const prodOld = { [DEV]: healthy(NEW), [PROD]: healthy(OLD), [PROD_US]: healthy(OLD) };
const servingOld = [{ env: 'prod', version: OLD, servedSince: minutesFromNow(-600) }];

describe('decide: the external-service strategy', () => {
  runRows([
    {
      name: 'nothing served yet, prod runs 6.4.0 healthily: 6.4.0 is served, and 6.5.0 promoted as usual',
      pipeline: served({ promotion: manualExternalService }),
      observed: prodOld,
      servedInputs: [],
      freezes: [],
      candidate: NEW,
      actions: [
        { type: 'request-approval', env: 'prod', revision: NEW },
        { type: 'serve-current', env: 'prod', revision: OLD },
      ],
      states: { dev: 'source', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', prod: 'ApprovalRequested' },
    },
    {
      name: 'nothing served yet, and the promotion starts now: the promotion is served, not the running revision',
      pipeline: served(),
      observed: prodOld,
      servedInputs: [],
      freezes: [],
      candidate: NEW,
      actions: [{ type: 'promote', env: 'prod', revision: NEW }],
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'PromotionDue' },
      messages: { prod: ['promoting 6.5.0 by external-service'] },
    },
    {
      name: 'nothing served yet, and prod runs two revisions: nothing is served, a provider sees no input',
      pipeline: served({ promotion: manualExternalService }),
      observed: { ...prodOld, [PROD_US]: healthy('6.3.0') },
      servedInputs: [],
      candidate: NEW,
      actions: [{ type: 'request-approval', env: 'prod', revision: NEW }],
      states: { dev: 'source', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', prod: 'ApprovalRequested' },
    },
    {
      name: 'nothing served yet, and a target of prod still reconciles: nothing is served yet',
      pipeline: served({ promotion: manualExternalService }),
      observed: { ...prodOld, [PROD_US]: unsettled(OLD) },
      servedInputs: [],
      candidate: NEW,
      actions: [{ type: 'request-approval', env: 'prod', revision: NEW }],
      states: { dev: 'source', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', prod: 'ApprovalRequested' },
    },
    {
      name: 'something is served already: it stays, whatever prod runs',
      pipeline: served({ promotion: manualExternalService }),
      observed: prodOld,
      approvals: [approved('prod', NEW)],
      servedInputs: servingOld,
      freezes: [],
      candidate: NEW,
      actions: [{ type: 'promote', env: 'prod', revision: NEW }],
      states: { dev: 'source', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', prod: 'Approved' },
    },
    {
      name: 'the served inputs were not read: nothing is served (the decision serves only what it knows is missing)',
      pipeline: served({ promotion: manualExternalService }),
      observed: prodOld,
      candidate: NEW,
      actions: [{ type: 'request-approval', env: 'prod', revision: NEW }],
      states: { dev: 'source', prod: 'waiting-approval' },
      reasons: { dev: 'CandidateFound', prod: 'ApprovalRequested' },
    },
    {
      name: 'promoted: prod waits for its leaf clusters to pull 6.5.0, saying since when it is served',
      pipeline: served(),
      observed: prodOld,
      servedInputs: [{ env: 'prod', version: NEW, previousVersion: OLD, servedSince: minutesFromNow(-7) }],
      promotions: [
        record('prod', NEW, {
          state: 'succeeded',
          result: 'served at /v1/inputs/flux-system/podinfo/prod',
          updatedAt: '2025-10-01T11:53:00.123Z',
        }),
      ],
      candidate: NEW,
      actions: [],
      states: { dev: 'source', prod: 'promoted' },
      reasons: { dev: 'CandidateFound', prod: 'InputServed' },
      messages: { prod: ['waiting for the leaf clusters to pull 6.5.0 (served since 2025-10-01T11:53:00Z)'] },
    },
    {
      name: 'the leaf clusters pulled it: prod passed as for any strategy',
      pipeline: served(),
      observed: { [DEV]: healthy(NEW), [PROD]: healthy(NEW), [PROD_US]: healthy(NEW) },
      servedInputs: [{ env: 'prod', version: NEW, previousVersion: OLD, servedSince: minutesFromNow(-7) }],
      promotions: [record('prod', NEW, { state: 'succeeded' })],
      candidate: NEW,
      actions: [],
      states: { dev: 'source', prod: 'passed' },
      reasons: { dev: 'CandidateFound', prod: 'AllTargetsReady' },
    },
  ]);
});
