// The approval's confirmation: a page of its own (works without JavaScript, reached by keyboard like any link) that
// names the pipeline, the environment and exactly the revision, and posts it with the process's CSRF token.
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
