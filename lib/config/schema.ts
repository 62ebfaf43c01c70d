// zod schemas for the configuration documents (docs/configuration.md). The Pipeline schema is exactly Weave's
// `pipelines.weave.works/v1alpha1` CRD, so a Weave Pipeline file loads unchanged (docs/weave-compatibility.md); our
// additions are optional.
// Objects are strict (an unknown field is an error) except `metadata`, which tolerates whatever kubectl exports.
import * as z from 'zod';
import { MAX_SOAK_MS } from '../pipeline/environment-policies.js';
import { SELECTOR_OPERATORS, requirementProblem } from '../pipeline/label-selector.js';
import { graphProblems } from '../pipeline/environment-graph.js';
import {
  APP_KINDS,
  PIPELINE_NEWS_KINDS,
  SOURCE_KINDS,
  WATCHED_KIND_GROUPS,
  type AppKind,
  type SourceKind,
  type WatchedKind,
} from '../pipeline/model.js';
import { repositoryAddress, repositoryPath, repositoryTypeOf } from '../pipeline/repository-address.js';
import { holdsUserInfo, USER_INFO_PROBLEM } from '../util/url-user-info.js';
import {
  ApprovalPolicySchema,
  FreezeWindows,
  RollbackAfter,
  RollbackStrategy,
  checkEnvironmentGates,
  pipelineDurationMs,
} from './environment-gates.js';
import {
  GIT_PROVIDER_TYPES,
  type Promotion as PromotionModel,
  type PullRequestPromotion as PullRequestPromotionModel,
} from '../pipeline/promotion.js';
import { isHttpUrl } from '../util/http-url.js';
import { MAX_VERIFICATION_MS, type WrittenVerification } from '../pipeline/verification.js';
import { outboundUrlProblem } from '../util/outbound-address.js';
import { awsRegion, dns1123Label, dns1123Subdomain, LocalObjectReference, Metadata } from './kubernetes-object.js';
import { GITOPS_CLUSTER_API_VERSION, GitopsClusterDocument } from './gitops-cluster.js';

// The vocabulary the documents share with the resolved model, which owns it.
export { APP_KINDS, GIT_PROVIDER_TYPES, SOURCE_KINDS, type AppKind, type SourceKind, type WatchedKind };
export { Metadata } from './kubernetes-object.js';
export {
  EksClusterReference,
  GITOPS_CLUSTER_API_VERSION,
  GitopsClusterDocument,
  GitopsClusterSpec,
} from './gitops-cluster.js';

// ---------------------------------------------------------------- Pipeline (pipelines.weave.works/v1alpha1)

export const PIPELINE_API_VERSION = 'pipelines.weave.works/v1alpha1';

/** The API group each supported app kind belongs to; appRef.apiVersion must be in it. */
export const APP_KIND_GROUPS: Readonly<Record<AppKind, string>> = WATCHED_KIND_GROUPS;

const GitProviderTypeField = z.enum(GIT_PROVIDER_TYPES, { error: `must be one of ${GIT_PROVIDER_TYPES.join(', ')}` });

/** A repository's https:// URL, with no credentials in it (they go in the Secret named by secretRef). */
function repositoryUrl(notHttps: string) {
  return z
    .string()
    .min(1, 'must not be empty')
    .refine((value) => isHttpUrl(value, { httpsOnly: true }), { message: notHttps })
    .refine((value) => !holdsUserInfo(value), {
      message: `${USER_INFO_PROBLEM}: the credentials go in the Secret named by secretRef`,
    });
}

/** The repository URL must be one its host type understands (docs/promotion-strategies.md, "Pull requests": the URL forms per host). */
export const PullRequestPromotion = z
  .strictObject({
    type: GitProviderTypeField,
    url: repositoryUrl('must be an https:// repository URL (only HTTPS is supported, as in Weave)'),
    baseBranch: z.string().min(1, 'must not be empty'),
    secretRef: LocalObjectReference,
    // Part of the group's branch name, `promotion-group-{group}-{env}` (docs/release-trains.md).
    group: z.optional(dns1123Label),
    waitForAll: z.boolean().optional(),
    deployments: z.boolean().optional(),
    environmentUrl: z
      .string()
      .refine((value) => isHttpUrl(value), { message: 'must be an http:// or https:// URL' })
      .optional(),
  })
  .superRefine((promotion, ctx) => {
    if (promotion.waitForAll !== undefined && promotion.group === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['waitForAll'],
        message: 'waits for the other members of a group: set group too',
      });
    }
    if (!isHttpUrl(promotion.url, { httpsOnly: true })) return; // said above
    const located = repositoryAddress(promotion.type, promotion.url);
    if (!located.ok) ctx.addIssue({ code: 'custom', path: ['url'], message: located.problem });
  }) satisfies z.ZodType<PullRequestPromotionModel>;

/**
 * `spec.promotion.strategy` or an environment's: Weave's CRD makes all three fields optional. Setting both
 * `pull-request` and `notification` is accepted (the pull request is used, as in Weave) with a warning
 * (references.ts); what each level must hold at least is checked by the two promotion schemas below.
 */
export const Strategy = z
  .strictObject({
    'pull-request': PullRequestPromotion.optional(),
    notification: z.strictObject({}).optional(),
    /** Extension: served to Flux Operator's ExternalService input provider (docs/external-service.md). */
    'external-service': z.strictObject({}).optional(),
    secretRef: z.optional(LocalObjectReference),
  })
  .superRefine((strategy, ctx) => {
    if (strategy['external-service'] === undefined) return;
    for (const other of ['pull-request', 'notification'] as const) {
      if (strategy[other] === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['external-service'],
        message: `external-service promotes without Git or notification: remove ${other} (or external-service)`,
      });
    }
  });

/** An environment's promotion: it promotes, so it names a strategy (Weave reads no webhook key at this level). */
export const Promotion = z.strictObject({
  manual: z.boolean().optional(),
  strategy: Strategy.superRefine((strategy, ctx) => {
    if (!strategy['pull-request'] && !strategy.notification && !strategy['external-service']) {
      ctx.addIssue({
        code: 'custom',
        message:
          'set a promotion strategy: pull-request, notification or external-service (a secretRef alone belongs in ' +
          'spec.promotion.strategy, the only place the webhook key is read from)',
      });
    }
  }),
}) satisfies z.ZodType<PromotionModel>;

/**
 * The pipeline's promotion: a strategy for the environments without their own, the webhook key, or both. Holding
 * only the key is Weave's way of signing the webhooks of a pipeline whose environments each name their strategy.
 */
export const PipelinePromotion = z.strictObject({
  manual: z.boolean().optional(),
  strategy: Strategy.superRefine((strategy, ctx) => {
    if (!strategy['pull-request'] && !strategy.notification && !strategy['external-service'] && !strategy.secretRef) {
      ctx.addIssue({
        code: 'custom',
        message:
          'set a promotion strategy (pull-request, notification or external-service), the webhook key (secretRef), ' +
          'or both',
      });
    }
  }),
}) satisfies z.ZodType<PromotionModel>;

/** An environment name is used in URLs, branch names and `ns:name:env` markers, so it must not contain / : or spaces. */
const environmentName = z
  .string()
  .min(1, 'must not be empty')
  .max(63, 'must be at most 63 characters')
  .regex(/^[^/:\s]+$/, 'must not contain "/", ":" or white space');

export const ClusterReference = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.literal('GitopsCluster', { error: 'must be GitopsCluster' }),
  name: dns1123Subdomain,
  namespace: z.optional(dns1123Label),
});

export const Target = z.strictObject({
  namespace: dns1123Label,
  clusterRef: ClusterReference.optional(),
});

/** Kubernetes label keys: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
const labelKey = z
  .string()
  .regex(
    /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/,
    'must be a Kubernetes label key ([prefix/]name: a name of at most 63 letters, digits, "-", "_" and ".")',
  );
/** Kubernetes label values: empty, or at most 63 characters starting and ending with a letter or digit. */
const labelValue = z
  .string()
  .regex(
    /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/,
    'must be a Kubernetes label value (at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit)',
  );

/** Extension: metav1.LabelSelector, over the GitopsClusters' labels (lib/pipeline/label-selector.ts). */
export const LabelSelector = z.strictObject({
  matchLabels: z.record(labelKey, labelValue).optional(),
  matchExpressions: z
    .array(
      z
        .strictObject({
          key: labelKey,
          operator: z.enum(SELECTOR_OPERATORS, { error: `must be one of ${SELECTOR_OPERATORS.join(', ')}` }),
          values: z.array(labelValue).optional(),
        })
        .superRefine((requirement, ctx) => {
          const problem = requirementProblem(requirement);
          if (problem) ctx.addIssue({ code: 'custom', path: ['values'], message: problem });
        }),
    )
    .optional(),
});

/**
 * Extension: the environment's targets are the app in `namespace` on every GitopsCluster (of any namespace) whose
 * labels `clusterSelector` selects, kept in step with the fleet as clusters are applied, relabelled and deleted.
 */
export const TargetSelector = z.strictObject({
  clusterSelector: LabelSelector,
  namespace: dns1123Label,
});

/**
 * Extension: how long every target of the environment must have been healthy on the candidate, continuously,
 * before the next environment may be promoted from it (docs/soak.md). Whole hours, minutes and seconds, written as
 * the CLI writes durations (`30m`, `2h`, `1h30m`), so that it reads the same in a Pipeline and on screen.
 */
export const SoakDuration = z.string().superRefine((text, ctx) => {
  const ms = pipelineDurationMs(text);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a duration in whole hours, minutes and seconds, e.g. 30m or 1h30m',
    });
  } else if (ms === 0) {
    ctx.addIssue({ code: 'custom', message: 'must be longer than 0s (leave the field out for no soak)' });
  } else if (ms > MAX_SOAK_MS) {
    ctx.addIssue({ code: 'custom', message: 'must be at most 168h (7 days)' });
  }
});

/** Checks per environment: each is evaluated at every re-check of the environment, so a handful. */
export const MAX_VERIFICATION_CHECKS = 20;
/** CloudWatch's DescribeAlarms takes at most 100 alarm names in one request. */
export const MAX_CHECK_ALARMS = 100;
export const MAX_CHECK_QUERY_CHARS = 4096;
export const MAX_CHECK_BODY_TEXT_CHARS = 1024;

/**
 * A URL a check calls (docs/verification.md, "Safety"): https, no credentials in it, never a link-local or metadata
 * address; plain http only to a loopback address, and only when the check says `allowInsecureLoopback: true`.
 */
function checkUrl(check: { url: string; allowInsecureLoopback?: boolean }, ctx: z.RefinementCtx): void {
  const problem = outboundUrlProblem(check.url, { allowLoopbackHttp: check.allowInsecureLoopback === true });
  if (!problem) return;
  const hint =
    check.allowInsecureLoopback !== true && /^http:\/\//i.test(check.url.trim()) && problem === 'must be https://'
      ? ' (for plain http:// to a loopback address, set allowInsecureLoopback: true)'
      : '';
  ctx.addIssue({ code: 'custom', path: ['url'], message: `${problem}${hint}` });
}

const allowInsecureLoopback = z.literal(true, { error: 'must be true (or leave it out)' }).optional();

/** `cloudwatchAlarms`: every alarm named is in state OK. */
export const CloudWatchAlarmsCheckSchema = z.strictObject({
  alarmNames: z
    .array(z.string().min(1, 'must not be empty').max(255, 'must be at most 255 characters'))
    .min(1, 'must name at least one alarm')
    .max(MAX_CHECK_ALARMS, `must name at most ${MAX_CHECK_ALARMS} alarms`),
  region: z.optional(awsRegion),
});

/** `prometheus.auth`: SigV4 with the controller's role (Amazon Managed Service for Prometheus), or a Secret. */
export const PrometheusAuthSchema = z
  .strictObject({
    sigv4: z.strictObject({ region: awsRegion }).optional(),
    secretRef: z.optional(LocalObjectReference),
  })
  .superRefine((auth, ctx) => {
    if ((auth.sigv4 === undefined) === (auth.secretRef === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of sigv4 or secretRef (or leave auth out)' });
    }
  });

/** `prometheus`: an instant query whose single value is compared with `below` or `above`. */
export const PrometheusCheckSchema = z
  .strictObject({
    url: z.string().min(1, 'must not be empty'),
    query: z
      .string()
      .refine((query) => query.trim() !== '', { message: 'must not be empty' })
      .refine((query) => query.length <= MAX_CHECK_QUERY_CHARS, {
        message: `must be at most ${MAX_CHECK_QUERY_CHARS} characters`,
      }),
    below: z.number().finite('must be a finite number').optional(),
    above: z.number().finite('must be a finite number').optional(),
    auth: PrometheusAuthSchema.optional(),
    allowInsecureLoopback,
  })
  .superRefine((check, ctx) => {
    checkUrl(check, ctx);
    if ((check.below === undefined) === (check.above === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of below or above' });
    }
  });

/** `http`: a GET of `url` answers `expectStatus` (default 200), with `bodyContains` in its body when given. */
export const HttpCheckSchema = z
  .strictObject({
    url: z.string().min(1, 'must not be empty'),
    expectStatus: z
      .number()
      .refine((status) => Number.isInteger(status) && status >= 100 && status <= 599, {
        message: 'must be an HTTP status code, a whole number from 100 to 599',
      })
      .optional(),
    bodyContains: z
      .string()
      .min(1, 'must not be empty (leave it out)')
      .max(MAX_CHECK_BODY_TEXT_CHARS, `must be at most ${MAX_CHECK_BODY_TEXT_CHARS} characters`)
      .optional(),
    secretRef: z.optional(LocalObjectReference),
    allowInsecureLoopback,
  })
  .superRefine(checkUrl);

/** `flaggerCanary`: on each target's cluster, the Flagger Canary succeeded for the candidate. */
export const FlaggerCanaryCheckSchema = z.strictObject({ name: dns1123Subdomain, namespace: dns1123Label });

/** The keys a check names its kind with, in the order the messages list them. */
const CHECK_KIND_KEYS = ['cloudwatchAlarms', 'prometheus', 'http', 'flaggerCanary'] as const;

/** One check: a name and exactly one kind. */
export const VerificationCheckSchema = z
  .strictObject({
    name: dns1123Label,
    cloudwatchAlarms: CloudWatchAlarmsCheckSchema.optional(),
    prometheus: PrometheusCheckSchema.optional(),
    http: HttpCheckSchema.optional(),
    flaggerCanary: FlaggerCanaryCheckSchema.optional(),
  })
  .superRefine((check, ctx) => {
    const kinds = CHECK_KIND_KEYS.filter((kind) => check[kind] !== undefined);
    if (kinds.length === 1) return;
    ctx.addIssue({
      code: 'custom',
      message:
        kinds.length === 0
          ? 'give one kind of check: cloudwatchAlarms, prometheus, http or flaggerCanary'
          : `give exactly one kind of check (found ${kinds.join(' and ')}): split it into one check per kind`,
    });
  });

/**
 * Extension: the checks that must hold, once every target is Ready on the candidate, before anything is promoted
 * from the environment (docs/verification.md, "The Pipeline fields").
 */
export const VerificationSchema = z
  .strictObject({
    for: z
      .string()
      .superRefine((text, ctx) => {
        const ms = pipelineDurationMs(text);
        if (ms === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: 'must be a duration in whole hours, minutes and seconds, e.g. 10m or 1h30m',
          });
        } else if (ms === 0) {
          ctx.addIssue({ code: 'custom', message: 'must be longer than 0s (leave the field out for one evaluation)' });
        } else if (ms > MAX_VERIFICATION_MS) {
          ctx.addIssue({ code: 'custom', message: 'must be at most 168h (7 days)' });
        }
      })
      .optional(),
    onInconclusive: z.enum(['wait', 'fail'], { error: 'must be wait or fail' }).optional(),
    checks: z
      .array(VerificationCheckSchema)
      .min(1, 'must hold at least one check (leave verification out for none)')
      .max(MAX_VERIFICATION_CHECKS, `must hold at most ${MAX_VERIFICATION_CHECKS} checks`),
  })
  .superRefine((verification, ctx) => {
    const first = new Map<string, number>();
    verification.checks.forEach((check, index) => {
      const earlier = first.get(check.name);
      if (earlier === undefined) first.set(check.name, index);
      else {
        const message = `duplicate check name "${check.name}" (also checks[${earlier}])`;
        ctx.addIssue({ code: 'custom', path: ['checks', index, 'name'], message });
      }
    });
  }) satisfies z.ZodType<WrittenVerification>;

export const Environment = z
  .strictObject({
    name: environmentName,
    after: z
      .array(environmentName)
      .min(1, 'must name at least one environment (leave it out to follow the one listed before)')
      .optional(),
    targets: z.array(Target).optional(),
    targetSelector: TargetSelector.optional(),
    promotion: Promotion.optional(),
    soak: SoakDuration.optional(),
    verification: VerificationSchema.optional(),
    // Extensions of Weave's Pipeline, validated in environment-gates.ts.
    freeze: FreezeWindows.optional(),
    approval: ApprovalPolicySchema.optional(),
    rollback: RollbackStrategy.optional(),
    rollbackAfter: RollbackAfter.optional(),
  })
  .superRefine((environment, ctx) => {
    if (environment.targetSelector === undefined && (environment.targets ?? []).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['targets'],
        message: 'an environment needs at least one target, or a targetSelector',
      });
    }
  });

export const AppReference = z.strictObject({
  apiVersion: z.string().min(1, 'must not be empty'),
  kind: z.enum(APP_KINDS, { error: `must be ${APP_KINDS.join(' or ')}` }),
  name: dns1123Subdomain,
});

/**
 * Extension: where new versions come from, a Flux object on a leaf cluster whose status names the newest version
 * (docs/configuration.md, "The first environment is promoted too"). The first environment is promoted to it like any other.
 */
export const SourceReference = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.enum(SOURCE_KINDS, { error: `must be ${SOURCE_KINDS.join(' or ')}` }),
  name: dns1123Subdomain,
  namespace: dns1123Label,
  clusterRef: ClusterReference.optional(),
});

/**
 * Extension: tells people only some of the news about this pipeline (docs/notifications.md, "Notifications to
 * people"); an absent field narrows nothing, an empty list means none.
 */
export const NotifyNarrowing = z.strictObject({
  news: z.array(z.enum(PIPELINE_NEWS_KINDS, { error: `must be one of ${PIPELINE_NEWS_KINDS.join(', ')}` })).optional(),
  environments: z.array(environmentName).optional(),
});

export const PipelineSpec = z
  .strictObject({
    appRef: AppReference,
    source: SourceReference.optional(),
    notify: NotifyNarrowing.optional(),
    environments: z.array(Environment).min(1, 'a pipeline needs at least one environment'),
    promotion: PipelinePromotion.optional(),
  })
  .superRefine((spec, ctx) => {
    const names = new Set(spec.environments.map((environment) => environment.name));
    spec.notify?.environments?.forEach((name, index) => {
      if (names.has(name)) return;
      const message = `the pipeline has no environment "${name}" (it has ${[...names].join(', ')})`;
      ctx.addIssue({ code: 'custom', path: ['notify', 'environments', index], message });
    });
    for (const problem of graphProblems(spec.environments)) ctx.addIssue({ code: 'custom', ...problem });
    checkEnvironmentGates(spec, ctx);
  });

export const PipelineDocument = z.strictObject({
  apiVersion: z.literal(PIPELINE_API_VERSION),
  kind: z.literal('Pipeline'),
  metadata: Metadata,
  spec: PipelineSpec,
  /**
   * Written by Weave's controller, so `kubectl get -o yaml` exports load: only a waiting approval is read from it
   * (waiting-approvals.ts); the rest is ignored.
   */
  status: z.unknown().optional(),
});

// ---------------------------------------------------------------- GitopsCluster (gitops.weave.works/v1alpha1)

// In gitops-cluster.ts (a verifier's poll checks the registrations it is handed without the other documents' schemas).

// ---------------------------------------------------------------- ConfigSource (pipeline-controller.io/v1alpha1)

export const CONFIG_SOURCE_API_VERSION = 'pipeline-controller.io/v1alpha1';

/**
 * A folder of a Git repository holding Pipelines and GitopsClusters, which the controller applies at each new commit
 * of a branch (docs/config-sources.md). The URL is read as a pull request's is; `type` may be left out where the URL
 * says which host it is.
 */
export const ConfigSourceSpec = z
  .strictObject({
    url: repositoryUrl('must be an https:// repository URL'),
    type: GitProviderTypeField.optional(),
    branch: z
      .string()
      .min(1, 'must not be empty')
      .max(255, 'must be at most 255 characters')
      .regex(/^[^\s~^:?*[\\]+$/, 'must be a Git branch name'),
    path: z
      .string()
      .max(1024, 'must be at most 1024 characters')
      .refine((value) => repositoryPath(value) !== undefined, {
        message: 'must be a folder of the repository, relative to its root, without "." or ".." segments',
      })
      .optional(),
    secretRef: LocalObjectReference,
    prune: z.boolean().optional(),
    namespaces: z.array(dns1123Label).min(1, 'must name at least one namespace (or leave the field out)').optional(),
  })
  .superRefine((spec, ctx) => {
    if (!isHttpUrl(spec.url, { httpsOnly: true }) || holdsUserInfo(spec.url)) return; // said above
    const type = repositoryTypeOf(spec.url, spec.type);
    if (!type) {
      ctx.addIssue({
        code: 'custom',
        path: ['type'],
        message: `cannot tell the Git host from the URL: set type to one of ${GIT_PROVIDER_TYPES.join(', ')}`,
      });
      return;
    }
    const located = repositoryAddress(type, spec.url);
    if (!located.ok) ctx.addIssue({ code: 'custom', path: ['url'], message: located.problem });
  });

export const ConfigSourceDocument = z.strictObject({
  apiVersion: z.literal(CONFIG_SOURCE_API_VERSION),
  kind: z.literal('ConfigSource'),
  metadata: Metadata,
  spec: ConfigSourceSpec,
  status: z.unknown().optional(),
});

// ---------------------------------------------------------------- PipelineSet (pipeline-controller.io/v1alpha1)

export const PIPELINE_SET_API_VERSION = 'pipeline-controller.io/v1alpha1';

/** Pipelines one PipelineSet may generate: every one is stored, polled and decided like a hand-written one. */
export const MAX_GENERATED_PIPELINES = 1000;

/**
 * An element's keys are what `{{ key }}` names in the template: letters, digits, "_", "-", "." and "/", so that a
 * Kubernetes label key (`app.kubernetes.io/part-of`) is one.
 */
export const ELEMENT_KEY_PATTERN = /^[A-Za-z0-9_][-A-Za-z0-9_./]*$/;

const elementKey = z
  .string()
  .regex(ELEMENT_KEY_PATTERN, 'must be letters, digits, "_", "-", "." and "/", starting with a letter, digit or "_"');

/** One element: its values are text (a number or a boolean is taken as written). */
export const GeneratorElement = z.record(
  elementKey,
  z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string, a number or a boolean' }),
);

/** `list`: the elements as written. */
export const ListGenerator = z.strictObject({
  elements: z
    .array(GeneratorElement)
    .min(1, 'must hold at least one element')
    .max(MAX_GENERATED_PIPELINES, `must hold at most ${MAX_GENERATED_PIPELINES} elements`),
});

/**
 * `apps`: one element per app object of `kind` in `namespace` on the cluster, whose labels `matchLabels` match; found
 * by the poll's LIST of that (cluster, kind). The element's keys are `app` (the object's name) and its labels.
 */
export const AppsGenerator = z.strictObject({
  clusterRef: ClusterReference,
  kind: z.enum(APP_KINDS, { error: `must be ${APP_KINDS.join(' or ')}` }),
  namespace: dns1123Label,
  matchLabels: z.record(labelKey, labelValue).optional(),
});

export const Generator = z
  .strictObject({ list: ListGenerator.optional(), apps: AppsGenerator.optional() })
  .superRefine((generator, ctx) => {
    const kinds = (['list', 'apps'] as const).filter((kind) => generator[kind] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: kinds.length === 0 ? 'give one generator: list or apps' : 'give exactly one generator: list or apps',
      });
    }
  });

/**
 * The template of each generated Pipeline: its name (and labels, annotations) and spec, `{{ key }}` in any string
 * replaced by the element's value. Its namespace is the set's. The spec is validated per element, as the Pipeline
 * it generates (lib/config/pipeline-set.ts).
 */
export const PipelineTemplate = z.strictObject({
  metadata: z.strictObject({
    name: z.string().min(1, 'must not be empty'),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.record(z.string(), z.unknown(), { error: 'must be a Pipeline spec (a mapping)' }),
});

export const PipelineSetSpec = z.strictObject({
  generators: z.array(Generator).min(1, 'must hold at least one generator'),
  template: PipelineTemplate,
});

export const PipelineSetDocument = z.strictObject({
  apiVersion: z.literal(PIPELINE_SET_API_VERSION),
  kind: z.literal('PipelineSet'),
  metadata: Metadata,
  spec: PipelineSetSpec,
  status: z.unknown().optional(),
});

// ---------------------------------------------------------------- Secret (v1)

const secretKey = z
  .string()
  .regex(/^[-._a-zA-Z0-9]+$/, 'Secret keys may only contain letters, digits, "-", "_" and "."');
// The messages never quote the value: a Secret's content must not reach an error or a log.
const base64Value = z
  .string()
  .refine(
    (value) => /^[A-Za-z0-9+/]*={0,2}$/.test(value.replace(/\s+/g, '')) && value.replace(/\s+/g, '').length % 4 === 0,
    {
      message: 'must be base64-encoded (use stringData for plain text)',
    },
  );

export const SecretDocument = z.strictObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Secret'),
  metadata: Metadata,
  type: z.string().optional(),
  immutable: z.boolean().optional(),
  data: z.record(secretKey, base64Value).optional(),
  stringData: z.record(secretKey, z.string()).optional(),
});

export type PipelineDocument = z.infer<typeof PipelineDocument>;
export type PipelineSpec = z.infer<typeof PipelineSpec>;
export type Promotion = z.infer<typeof Promotion>;
export type Environment = z.infer<typeof Environment>;
export type Target = z.infer<typeof Target>;
export type SourceReference = z.infer<typeof SourceReference>;
export type SecretDocument = z.infer<typeof SecretDocument>;
export type ConfigSourceDocument = z.infer<typeof ConfigSourceDocument>;
export type ConfigSourceSpec = z.infer<typeof ConfigSourceSpec>;
export type PipelineSetDocument = z.infer<typeof PipelineSetDocument>;
export type GeneratorElement = z.infer<typeof GeneratorElement>;
export type AppsGenerator = z.infer<typeof AppsGenerator>;

/** The document kinds the loader accepts, by `kind`. */
export const DOCUMENT_SCHEMAS = {
  Pipeline: { apiVersion: PIPELINE_API_VERSION, schema: PipelineDocument },
  GitopsCluster: { apiVersion: GITOPS_CLUSTER_API_VERSION, schema: GitopsClusterDocument },
  Secret: { apiVersion: 'v1', schema: SecretDocument },
  ConfigSource: { apiVersion: CONFIG_SOURCE_API_VERSION, schema: ConfigSourceDocument },
  PipelineSet: { apiVersion: PIPELINE_SET_API_VERSION, schema: PipelineSetDocument },
} as const;
export type DocumentKind = keyof typeof DOCUMENT_SCHEMAS;
