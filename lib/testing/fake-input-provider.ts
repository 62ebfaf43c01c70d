// Flux Operator on a leaf cluster, as far as an `external-service` environment needs it (docs/external-service.md):
// a ResourceSetInputProvider of type ExternalService that fetches its URL as flux-operator does (GET, `Accept:
// application/json`, the Secret's `token` as a bearer token), refuses what flux-operator refuses (not 200, not a JSON
// object with an `inputs` array, an input without a string `id` or with one seen twice, over 900 KiB), and a
// ResourceSet over it, played by `apply`: what the cluster runs once the inputs changed. Each fetch is one call of
// `reconcile`, so a test says when the leaf pulls, as flux-operator's `reconcileEvery` or schedule would.

/** One input as the provider exports it: an `id`, and whatever else the service sent. */
export type ExportedInput = { id: string } & Record<string, unknown>;

/** flux-operator refuses a larger answer. */
export const MAX_EXTERNAL_SERVICE_BYTES = 900 * 1024;

export class InputProviderError extends Error {
  override name = 'InputProviderError';
}

export class FakeInputProvider {
  /** What the last successful fetch exported, as `status.exportedInputs` shows it. */
  exportedInputs: ExportedInput[] = [];
  /** Fetches made, successful or not. */
  fetches = 0;

  constructor(
    private readonly options: {
      url: string;
      token: string;
      /** The ResourceSet: applied with the inputs whenever a fetch finds them changed. */
      apply: (inputs: readonly ExportedInput[]) => void | Promise<void>;
    },
  ) {}

  /** One fetch, then the ResourceSet applied if the inputs changed; a refused answer throws and changes nothing. */
  async reconcile(): Promise<readonly ExportedInput[]> {
    this.fetches += 1;
    const response = await fetch(this.options.url, {
      headers: { accept: 'application/json', authorization: `Bearer ${this.options.token}` },
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new InputProviderError(`GET ${this.options.url}: HTTP ${response.status}`);
    if (body.length > MAX_EXTERNAL_SERVICE_BYTES) {
      throw new InputProviderError(`the answer is ${body.length} bytes, over ${MAX_EXTERNAL_SERVICE_BYTES}`);
    }
    const inputs = exportedInputsOf(JSON.parse(body.toString('utf8')) as unknown);
    if (JSON.stringify(inputs) !== JSON.stringify(this.exportedInputs)) {
      this.exportedInputs = inputs;
      await this.options.apply(inputs);
    }
    return inputs;
  }
}

function exportedInputsOf(answer: unknown): ExportedInput[] {
  const inputs = (answer as { inputs?: unknown } | null)?.inputs;
  if (typeof answer !== 'object' || answer === null || !Array.isArray(inputs)) {
    throw new InputProviderError('the answer is not a JSON object with an "inputs" array');
  }
  const ids = new Set<string>();
  return inputs.map((input: unknown, index) => {
    const id = (input as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') throw new InputProviderError(`inputs[${index}] has no string id`);
    if (ids.has(id)) throw new InputProviderError(`inputs[${index}]: the id "${id}" is not unique`);
    ids.add(id);
    return input as ExportedInput;
  });
}
