// Kubernetes label selectors (metav1.LabelSelector), as an environment's `targetSelector.clusterSelector` uses them
// over the GitopsClusters' `metadata.labels`. The semantics are Kubernetes' own, so a selector a user copies from a
// Deployment or a NetworkPolicy means the same here:
// - every `matchLabels` pair and every `matchExpressions` requirement must hold (AND);
// - `In`: the label is set to one of the values; `NotIn`: the label is absent or set to none of them;
//   `Exists` / `DoesNotExist`: the key is present / absent, whatever its value;
// - an empty selector (`{}`) selects every cluster, as in Kubernetes. (A missing selector is not empty: it is the
//   schema's business to require one.)

export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

export interface LabelSelectorRequirement {
  key: string;
  operator: SelectorOperator;
  /** Required (non-empty) for In and NotIn; must be absent or empty for Exists and DoesNotExist. */
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Readonly<Record<string, string>>;

/** Whether a cluster with these labels is selected. */
export function selectsLabels(selector: LabelSelector, labels: Labels | undefined): boolean {
  const has = (key: string) => labels !== undefined && Object.hasOwn(labels, key);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(key) || labels?.[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const present = has(requirement.key);
    const value = labels?.[requirement.key];
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
        if (!present || !values.includes(value ?? '')) return false;
        break;
      case 'NotIn':
        if (present && values.includes(value ?? '')) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
    }
  }
  return true;
}

/**
 * A requirement that Kubernetes would refuse, as a sentence fit to follow the requirement's place; undefined when it
 * is valid. Kubernetes refuses In/NotIn without values and Exists/DoesNotExist with values.
 */
export function requirementProblem(requirement: LabelSelectorRequirement): string | undefined {
  const count = requirement.values?.length ?? 0;
  if ((requirement.operator === 'In' || requirement.operator === 'NotIn') && count === 0) {
    return `needs at least one value for the operator ${requirement.operator}`;
  }
  if ((requirement.operator === 'Exists' || requirement.operator === 'DoesNotExist') && count > 0) {
    return `must have no values for the operator ${requirement.operator}`;
  }
  return undefined;
}

/**
 * The selector in kubectl's `-l` syntax (`tier=prod,region in (eu,us),!legacy`), for status and explanations;
 * `<everything>` for an empty selector, as kubectl describes one.
 */
export function selectorString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`);
  for (const requirement of selector.matchExpressions ?? []) {
    const values = [...(requirement.values ?? [])].sort().join(',');
    switch (requirement.operator) {
      case 'In':
        parts.push(`${requirement.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${requirement.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(requirement.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${requirement.key}`);
        break;
    }
  }
  return parts.length > 0 ? parts.join(',') : '<everything>';
}
