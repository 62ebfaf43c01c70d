// The confirmations of an approval and of a rejection: each a page of its own (works without JavaScript, reached by
// keyboard like any link) that names the pipeline, the environment and exactly the revision, and posts it with the
// process's CSRF token. A rejection also asks why, which is required.
import { MAX_REJECTION_REASON_LENGTH } from '../../approval/reject.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

export interface ConfirmationInput {
  pipeline: ObjectKey;
  env: string;
  revision: string;
  csrfToken: string;
  backend: string;
}

/** The form field names the approval POST takes. */
export const APPROVE_FIELDS = { revision: 'revision', csrf: 'csrf' } as const;

export function confirmationPage({ pipeline, env, revision, csrfToken, backend }: ConfirmationInput): Html {
  const back = pathOf('pipelines', pipeline.namespace, pipeline.name);
  const action = pathOf('pipelines', pipeline.namespace, pipeline.name, 'environments', env, 'approve');
  const main = html`<h1>Approve ${revision}?</h1>
    <p id="confirmation">
      Approve revision <strong>${revision}</strong> for environment <strong>${env}</strong> of
      <strong>${objectKeyString(pipeline)}</strong>. The verifier then promotes it; the approval is recorded with your
      identity.
    </p>
    <form method="post" action="${action}">
      <input type="hidden" name="${APPROVE_FIELDS.revision}" value="${revision}" />
      <input type="hidden" name="${APPROVE_FIELDS.csrf}" value="${csrfToken}" />
      <button type="submit" class="primary" id="confirm-approve">Approve ${revision}</button>
      <a class="button" href="${back}">Cancel</a>
    </form>`;
  return layout({ title: `Approve ${revision}`, section: 'none', backend, main });
}

/** The form field names the rejection POST takes. */
export const REJECT_FIELDS = { revision: 'revision', reason: 'reason', csrf: 'csrf' } as const;

export function rejectionPage({ pipeline, env, revision, csrfToken, backend }: ConfirmationInput): Html {
  const back = pathOf('pipelines', pipeline.namespace, pipeline.name);
  const action = pathOf('pipelines', pipeline.namespace, pipeline.name, 'environments', env, 'reject');
  const main = html`<h1>Reject ${revision}?</h1>
    <p id="confirmation">
      Reject revision <strong>${revision}</strong> for environment <strong>${env}</strong> of
      <strong>${objectKeyString(pipeline)}</strong>. It is then not promoted there, whatever approvals follow, until a
      newer revision asks for approval; the rejection is recorded with your identity and the reason.
    </p>
    <form method="post" action="${action}">
      <input type="hidden" name="${REJECT_FIELDS.revision}" value="${revision}" />
      <input type="hidden" name="${REJECT_FIELDS.csrf}" value="${csrfToken}" />
      <p>
        <label for="reject-reason">Why (one line, required)</label><br />
        <input
          type="text"
          id="reject-reason"
          name="${REJECT_FIELDS.reason}"
          required
          maxlength="${MAX_REJECTION_REASON_LENGTH}"
          size="60"
          autocomplete="off"
        />
      </p>
      <button type="submit" class="primary" id="confirm-reject">Reject ${revision}</button>
      <a class="button" href="${back}">Cancel</a>
    </form>`;
  return layout({ title: `Reject ${revision}`, section: 'none', backend, main });
}
