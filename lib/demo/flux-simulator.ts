// Flux on the demo's simulated leaf clusters. Each simulated target is a HelmRelease on a FakeKubeApi whose chart
// version comes from a file in the fleet repository on the simulated Git host, as with a real fleet repository:
//
// 1. every `intervalMs` the version in the file (on `branch`) is compared with the version the HelmRelease's spec
//    asks for;
// 2. when they differ, after `reconcileDelayMs` (the GitRepository interval and kustomize-controller's apply) the
//    spec takes the new version and helm-controller starts the upgrade: a new generation, Reconciling True, Ready
//    Unknown, the old release still in the history;
// 3. after `upgradeMs` the upgrade ends: a new Helm release in the history (the previous one superseded), Ready and
//    Released True with UpgradeSucceeded, the generation observed;
// 4. then notification-controller's generic-hmac Provider POSTs the `UpgradeSucceeded` event (a Flux event's JSON
//    body, as a real cluster sends it) to `<receiverUrl>/v1/events/<cluster namespace>/<cluster name>`, signed
//    `X-Signature: sha256=…` with the cluster's key derived from the master key, retried like notification-controller
//    does (2, 4, 8 s apart on a connection error, 429 or 5xx other than 501; nothing persisted).
//
// A real helm-controller emits its event a moment before it writes the final status; the product reads the object
// anyway and re-checks one that has not settled. The simulator sends it right after the status, so that the demo
// does not wait for a re-check. The state lives in the fake clusters' objects; the simulator only remembers which
// targets are in the middle of an upgrade.
import { setTimeout as sleep } from 'node:timers/promises';
import { readTargetStatus, type TargetStatus } from '../flux/index.js';
import { deriveClusterKey, signatureHeader } from '../signing/hmac.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { FakeKubeApi } from '../testing/fake-kube-api.js';
import {
  chartVersionIn,
  finishHelmUpgrade,
  helmReleaseEventBody,
  installedHelmRelease,
  requestedChartVersion,
  startHelmUpgrade,
} from '../testing/helm-release.js';
import type { FleetRepository } from './fleet-repository.js';
import { Loop } from './loop.js';
import { errorMessage } from '../util/error-message.js';

export interface SimulatedTarget {
  /** The GitopsCluster this is Flux on: its events go to that cluster's route, signed with its derived key. */
  cluster: ObjectKey;
  api: FakeKubeApi;
  /** The HelmRelease's namespace on the cluster. */
  namespace: string;
  /** The HelmRelease's name. Default `podinfo`. */
  name?: string;
  /** The file in the repository that holds this target's HelmRelease manifest, e.g. `clusters/dev/podinfo.yaml`. */
  file: string;
}

export interface FluxSimulatorOptions {
  /** The fleet repository Flux follows. */
  repository: FleetRepository;
  /** The branch Flux follows. Default `main`. */
  branch?: string;
  targets: readonly SimulatedTarget[];
  /** The receiver's base URL, e.g. `http://127.0.0.1:8080`. */
  receiverUrl: string;
  /** The master key the clusters' event keys are derived from. */
  masterKey: string;
  /** How often Git is compared with the clusters. Default 1000. */
  intervalMs?: number;
  /** From a new version in Git to the start of the upgrade. Default 1000. */
  reconcileDelayMs?: number;
  /** How long the Helm upgrade takes. Default 3000. */
  upgradeMs?: number;
  /** Waits between event delivery attempts; their count + 1 is the number of attempts. Default [2000, 4000, 8000]. */
  eventRetryDelaysMs?: readonly number[];
  /** Reads the version from the file's text. Default: `spec.chart.spec.version` of its HelmRelease. */
  readVersion?: (text: string) => string | undefined;
  onActivity?: (activity: FluxActivity) => void;
}

export type FluxActivityType =
  'upgrade-started' | 'upgraded' | 'event-sent' | 'event-failed' | 'git-unreadable' | 'error';

export interface FluxActivity {
  type: FluxActivityType;
  /** `ns/name` of the cluster. */
  cluster: string;
  namespace: string;
  name: string;
  version?: string;
  /** One line for a person. */
  message: string;
}

/** What a simulated target runs now, read from its cluster. */
export interface SimulatedTargetState {
  cluster: ObjectKey;
  namespace: string;
  name: string;
  file: string;
  /** The version Git names for the target now (undefined: the file is missing or unreadable). */
  inGit?: string;
  /** The object's status as the product would read it; undefined when the object does not exist. */
  status?: TargetStatus;
  /** Set while an upgrade to this version is under way. */
  upgradingTo?: string;
}

const KIND = 'HelmRelease';

type Target = SimulatedTarget & { name: string };

export class FluxSimulator {
  private readonly targets: Target[];
  private readonly branch: string;
  private readonly reconcileDelayMs: number;
  private readonly upgradeMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly readVersion: (text: string) => string | undefined;
  private readonly upgrades = new Map<string, { version: string; done: Promise<void> }>();
  private readonly unreadable = new Set<string>();
  private abort = new AbortController();
  private readonly loop: Loop;

  constructor(private readonly options: FluxSimulatorOptions) {
    this.targets = options.targets.map((target) => ({ ...target, name: target.name ?? 'podinfo' }));
    this.branch = options.branch ?? 'main';
    this.reconcileDelayMs = options.reconcileDelayMs ?? 1000;
    this.upgradeMs = options.upgradeMs ?? 3000;
    this.retryDelaysMs = options.eventRetryDelaysMs ?? [2000, 4000, 8000];
    this.readVersion = options.readVersion ?? chartVersionIn;
    this.loop = new Loop(options.intervalMs ?? 1000, () => this.tick());
  }

  /** Installs the HelmRelease of every target that has none (at the version Git names), then follows Git. */
  start(): this {
    this.install();
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.loop.start();
    return this;
  }

  /** Stops following Git; upgrades under way are abandoned where they are, events in flight are dropped. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop.stop();
    await Promise.all([...this.upgrades.values()].map((upgrade) => upgrade.done));
  }

  /** Creates the missing HelmReleases, deployed and healthy at the version Git names for them. */
  install(): void {
    for (const target of this.targets) {
      if (target.api.object(KIND, target.namespace, target.name)) continue;
      const version = this.versionInGit(target);
      if (version === undefined) continue;
      target.api.put(installedHelmRelease({ namespace: target.namespace, name: target.name }, version));
    }
  }

  /** Compares Git with every target once, and starts the upgrades that are due. */
  tick(): void {
    for (const target of this.targets) {
      const key = targetKey(target);
      if (this.upgrades.has(key)) continue;
      const version = this.versionInGit(target);
      const object = target.api.object(KIND, target.namespace, target.name);
      if (version === undefined || !object || requestedChartVersion(object) === version) continue;
      const done = this.upgrade(target, version).finally(() => this.upgrades.delete(key));
      this.upgrades.set(key, { version, done });
    }
  }

  /** Every target as its cluster shows it now, in the order given. */
  states(): SimulatedTargetState[] {
    return this.targets.map((target) => {
      const object = target.api.object(KIND, target.namespace, target.name);
      const inGit = this.versionInGit(target, false);
      const upgradingTo = this.upgrades.get(targetKey(target))?.version;
      return {
        cluster: target.cluster,
        namespace: target.namespace,
        name: target.name,
        file: target.file,
        ...(inGit === undefined ? {} : { inGit }),
        ...(object ? { status: readTargetStatus(object) } : {}),
        ...(upgradingTo === undefined ? {} : { upgradingTo }),
      };
    });
  }

  /** Resolves once no upgrade is under way (for tests). */
  async idle(): Promise<void> {
    while (this.upgrades.size > 0) await Promise.all([...this.upgrades.values()].map((upgrade) => upgrade.done));
  }

  private async upgrade(target: Target, version: string): Promise<void> {
    const { signal } = this.abort;
    const { api, namespace, name } = target;
    try {
      await sleep(this.reconcileDelayMs, undefined, { signal });
      const before = api.object(KIND, namespace, name);
      if (!before) return;
      const from = before.status ? readTargetStatus(before).revision : undefined;
      api.update(KIND, namespace, name, (object) => startHelmUpgrade(object, version));
      this.report(target, 'upgrade-started', version, `upgrading ${from ?? '(nothing)'} → ${version}`);
      await sleep(this.upgradeMs, undefined, { signal });
      let result = { release: 0, message: '' };
      const after = api.update(KIND, namespace, name, (object) => {
        result = finishHelmUpgrade(object);
      });
      this.report(target, 'upgraded', version, `upgraded to ${version} (Helm release v${result.release})`);
      const body = helmReleaseEventBody({
        object: after,
        reason: 'UpgradeSucceeded',
        message: result.message,
        version,
      });
      await this.sendEvent(target, version, body, signal);
    } catch (error) {
      if (signal.aborted) return; // stopping
      this.report(target, 'error', version, `simulation error: ${String(error)}`);
    }
  }

  private async sendEvent(target: Target, version: string, body: string, signal: AbortSignal) {
    const { cluster } = target;
    const url = `${this.options.receiverUrl.replace(/\/+$/, '')}/v1/events/${cluster.namespace}/${cluster.name}`;
    const key = deriveClusterKey(this.options.masterKey, cluster);
    let outcome: string;
    for (let attempt = 0; ; attempt++) {
      let retryable: boolean;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'gotk-component': 'helm-controller',
            'x-signature': signatureHeader(body, key),
          },
          body,
          signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]),
        });
        await response.arrayBuffer();
        if (response.status >= 200 && response.status < 300) {
          this.report(target, 'event-sent', version, `sent UpgradeSucceeded ${version} (HTTP ${response.status})`);
          return;
        }
        outcome = `HTTP ${response.status}`;
        retryable = response.status === 429 || (response.status >= 500 && response.status !== 501);
      } catch (error) {
        if (signal.aborted) return;
        outcome = errorMessage(error);
        retryable = true;
      }
      const delay = this.retryDelaysMs[attempt];
      if (!retryable || delay === undefined) break;
      await sleep(delay, undefined, { signal });
    }
    this.report(target, 'event-failed', version, `could not deliver the UpgradeSucceeded event: ${outcome}`);
  }

  private versionInGit(target: Target, report = true): string | undefined {
    const text = this.options.repository.readFile(this.branch, target.file);
    const version = text === undefined ? undefined : this.readVersion(text);
    const key = targetKey(target);
    if (version === undefined && report && !this.unreadable.has(key)) {
      this.unreadable.add(key);
      this.report(target, 'git-unreadable', undefined, `no chart version in ${target.file} on ${this.branch}`);
    } else if (version !== undefined) {
      this.unreadable.delete(key);
    }
    return version;
  }

  private report(target: Target, type: FluxActivityType, version: string | undefined, message: string) {
    this.options.onActivity?.({
      type,
      cluster: objectKeyString(target.cluster),
      namespace: target.namespace,
      name: target.name,
      ...(version === undefined ? {} : { version }),
      message: `${target.cluster.name}/${target.namespace}/${target.name}: ${message}`,
    });
  }
}

function targetKey(target: Target): string {
  return `${objectKeyString(target.cluster)} ${target.namespace}/${target.name}`;
}
