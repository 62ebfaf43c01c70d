// The stop switch's pages (docs/freeze.md): the Freeze form of a pipeline and the Unfreeze confirmation, each a page
// of its own like the approval's (works without JavaScript, reached by keyboard like any link), posting with the
// process's CSRF token. Nothing on them changes while it is open, so the live update never swaps a half-filled form.
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

/** The form field names the freeze and unfreeze POSTs take. */
export const FREEZE_FIELDS = { reason: 'reason', env: 'env', until: 'until', csrf: 'csrf' } as const;

/** GET shows the Freeze form, POST (from it) sets the switch. */
export function freezePath(pipeline: ObjectKey): string {
  return pathOf('pipelines', pipeline.namespace, pipeline.name, 'freeze');
}

/** GET shows the confirmation (`?env=`: the switch for that environment), POST (from it) lifts the switch. */
export function unfreezePath(pipeline: ObjectKey, env?: string): string {
  const path = pathOf('pipelines', pipeline.namespace, pipeline.name, 'unfreeze');
  return env === undefined ? path : `${path}?${FREEZE_FIELDS.env}=${encodeURIComponent(env)}`;
}

export interface FreezeFormInput {
  pipeline: ObjectKey;
  environments: readonly string[];
  csrfToken: string;
  backend: string;
}

export function freezeFormPage({ pipeline, environments, csrfToken, backend }: FreezeFormInput): Html {
  const name = objectKeyString(pipeline);
  const back = pathOf('pipelines', pipeline.namespace, pipeline.name);
  const main = html`<h1>Freeze ${name}?</h1>
    <p id="freeze-explanation">
      No promotion into the chosen environments of <strong>${name}</strong> starts until the switch is lifted or ends; a
      promotion already under way finishes. The switch is recorded with your identity.
    </p>
    <form method="post" action="${freezePath(pipeline)}">
      <p>
        <label for="freeze-env">Environment</label>
        <select id="freeze-env" name="${FREEZE_FIELDS.env}">
          <option value="">every environment</option>
          ${environments.map((env) => html`<option value="${env}">${env}</option>`)}
        </select>
      </p>
      <p>
        <label for="freeze-reason">Reason (required)</label>
        <input id="freeze-reason" name="${FREEZE_FIELDS.reason}" required maxlength="500" size="60" />
      </p>
      <p>
        <label for="freeze-until">Until (optional)</label>
        <input
          id="freeze-until"
          name="${FREEZE_FIELDS.until}"
          maxlength="64"
          placeholder="2h, 30m, 2d or 2026-11-24T08:00:00Z"
          size="40"
        />
        <span class="muted">empty: until someone unfreezes it</span>
      </p>
      <input type="hidden" name="${FREEZE_FIELDS.csrf}" value="${csrfToken}" />
      <button type="submit" class="primary" id="confirm-freeze">Freeze</button>
      <a class="button" href="${back}">Cancel</a>
    </form>`;
  return layout({ title: `Freeze ${name}`, section: 'none', backend, main });
}

export interface UnfreezeConfirmationInput {
  pipeline: ObjectKey;
  /** The switch for this environment; undefined: every switch of the pipeline. */
  env?: string;
  csrfToken: string;
  backend: string;
}

export function unfreezeConfirmationPage({ pipeline, env, csrfToken, backend }: UnfreezeConfirmationInput): Html {
  const name = objectKeyString(pipeline);
  const back = pathOf('pipelines', pipeline.namespace, pipeline.name);
  const what = env === undefined ? 'every stop switch' : html`the stop switch for <strong>${env}</strong>`;
  const main = html`<h1>Unfreeze ${name}?</h1>
    <p id="confirmation">
      Lift ${what} of <strong>${name}</strong>. The verifier then decides the pipeline again at once; the removal is
      recorded with your identity. An installation-wide switch is not lifted here (<code
        >pipelinectl unfreeze --all</code
      >
      lifts it).
    </p>
    <form method="post" action="${unfreezePath(pipeline)}">
      ${env === undefined ? '' : html`<input type="hidden" name="${FREEZE_FIELDS.env}" value="${env}" />`}
      <input type="hidden" name="${FREEZE_FIELDS.csrf}" value="${csrfToken}" />
      <button type="submit" class="primary" id="confirm-unfreeze">Unfreeze</button>
      <a class="button" href="${back}">Cancel</a>
    </form>`;
  return layout({ title: `Unfreeze ${name}`, section: 'none', backend, main });
}
