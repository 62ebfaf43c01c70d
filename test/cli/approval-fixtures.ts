// The fixtures' configuration with an approval policy (docs/approval-policies.md) on its manual `staging`, for the
// CLI and dashboard tests of approvals and rejections.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { pipeline } from './fixtures.js';

/** The identity pipelinectl acts under in these tests: the operating system's user. */
export const LOCAL_IDENTITY = `local:${userInfo().username}`;
/** Another local user, never the one running the tests: a second approver, or one the policy does not list. */
export const OTHER_USER = userInfo().username === 'alice' ? 'bob' : 'alice';

/** The fixtures' pipeline (prod in `apps`) with `approval`, a YAML flow mapping, on the manual staging. */
export function pipelineWithStagingApproval(approval: string): string {
  const yaml = pipeline('apps');
  const manual = '      promotion:\n        manual: true\n';
  assert.ok(yaml.includes(manual), 'the fixture still has a manual staging');
  return yaml.replace(manual, `      approval: ${approval}\n${manual}`);
}
