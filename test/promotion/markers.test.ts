import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markerFor, markersIn, mayHoldMarkers, setMarkedValues } from '../../lib/promotion/markers.js';

interface Case {
  name: string;
  input: string;
  marker: string;
  version: string;
  expected: string;
  found: number;
  replaced: number;
  markers: string[];
}

const PROD = 'flux-system:podinfo:prod';
const DEV = 'flux-system:podinfo:dev';

// Weave's server/strategy/pullrequest/testdata/git/repository/deployment.yaml (the marked line as in the reference;
// the rest is the usual nginx Deployment).
const weaveDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.22.0 # {"$promotion": "foo:bar:dev"}
        ports:
        - containerPort: 80
`;

const weaveHelmRelease = `apiVersion: helm.toolkit.fluxcd.io/v2beta1
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  interval: 1m
  chart:
    spec:
      chart: podinfo
      version: "5.0.0" # {"$promotion": "foo:bar:prod"}
      sourceRef:
        kind: HelmRepository
        name: podinfo
        namespace: flux-system
`;

const cases: Case[] = [
  {
    name: "Weave's nginx Deployment: the whole image becomes the bare version",
    input: weaveDeployment,
    marker: 'foo:bar:dev',
    version: '1.23.0',
    expected: weaveDeployment.replace('image: nginx:1.22.0 #', 'image: 1.23.0 #'),
    found: 1,
    replaced: 1,
    markers: ['foo:bar:dev'],
  },
  {
    name: "Weave's integration HelmRelease: a double-quoted version stays double-quoted",
    input: weaveHelmRelease,
    marker: 'foo:bar:prod',
    version: '5.0.1',
    expected: `apiVersion: helm.toolkit.fluxcd.io/v2beta1
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  interval: 1m
  chart:
    spec:
      chart: podinfo
      version: "5.0.1" # {"$promotion": "foo:bar:prod"}
      sourceRef:
        kind: HelmRepository
        name: podinfo
        namespace: flux-system
`,
    found: 1,
    replaced: 1,
    markers: ['foo:bar:prod'],
  },
  {
    name: "Weave's integration HelmRelease for another environment: untouched",
    input: weaveHelmRelease,
    marker: 'foo:bar:dev',
    version: '5.0.1',
    expected: weaveHelmRelease,
    found: 0,
    replaced: 0,
    markers: ['foo:bar:prod'],
  },
  {
    name: 'a single-quoted version stays single-quoted',
    input: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: '6.0.0' # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: '6.0.1' # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a plain version stays plain',
    input: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a plain version that would read as a number is written double-quoted',
    input: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: 1.9 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '1.10',
    expected: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      version: "1.10" # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a plain number equal to the version is not the version string: it gets quoted',
    input: `version: 1.10 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '1.10',
    expected: `version: "1.10" # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a Kustomization postBuild.substitute value',
    input: `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: podinfo
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/podinfo
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
  postBuild:
    substitute:
      podinfoVersion: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
      cluster: prod
`,
    marker: PROD,
    version: '6.0.1',
    expected: `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: podinfo
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/podinfo
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
  postBuild:
    substitute:
      podinfoVersion: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
      cluster: prod
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'two environments in one file: only the target environment changes',
    input: `# podinfo across environments
dev:
  version: 6.0.1 # {"$promotion": "flux-system:podinfo:dev"}
prod:
  version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `# podinfo across environments
dev:
  version: 6.0.1 # {"$promotion": "flux-system:podinfo:dev"}
prod:
  version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [DEV, PROD],
  },
  {
    name: 'the same marker twice: both set, markersIn lists it once',
    input: `spec:
  chart:
    spec:
      version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
  values:
    image:
      tag: "6.0.0" # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.1.0',
    expected: `spec:
  chart:
    spec:
      version: 6.1.0 # {"$promotion": "flux-system:podinfo:prod"}
  values:
    image:
      tag: "6.1.0" # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 2,
    replaced: 2,
    markers: [PROD],
  },
  {
    name: 'a scalar already at the version is found, not replaced',
    input: `version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
other: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
other: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 2,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'comments, blank lines, odd spacing, anchors and aliases are kept',
    input: `# Release of podinfo in prod.

apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo   # the app
  namespace:    prod


spec:
  chart:
    spec:
      chart: podinfo
      version: &version 6.0.0   #   {"$promotion" : "flux-system:podinfo:prod"}   
      sourceRef: { kind: HelmRepository, name: podinfo }
  # keep the image tag in step with the chart
  values:
    image:
      tag: *version
    defaults: &defaults
      replicas: 2
    other: *defaults
# the end
`,
    marker: PROD,
    version: '6.0.1',
    expected: `# Release of podinfo in prod.

apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo   # the app
  namespace:    prod


spec:
  chart:
    spec:
      chart: podinfo
      version: &version 6.0.1   #   {"$promotion" : "flux-system:podinfo:prod"}   
      sourceRef: { kind: HelmRepository, name: podinfo }
  # keep the image tag in step with the chart
  values:
    image:
      tag: *version
    defaults: &defaults
      replicas: 2
    other: *defaults
# the end
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'CRLF line endings are kept',
    input:
      'kind: HelmRelease\r\nspec:\r\n  chart:\r\n    spec:\r\n' +
      '      version: "5.0.0" # {"$promotion": "foo:bar:prod"}\r\n' +
      '      chart: podinfo\r\n',
    marker: 'foo:bar:prod',
    version: '5.0.1',
    expected:
      'kind: HelmRelease\r\nspec:\r\n  chart:\r\n    spec:\r\n' +
      '      version: "5.0.1" # {"$promotion": "foo:bar:prod"}\r\n' +
      '      chart: podinfo\r\n',
    found: 1,
    replaced: 1,
    markers: ['foo:bar:prod'],
  },
  {
    name: 'a missing final newline stays missing',
    input: `spec:
  version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}`,
    marker: PROD,
    version: '6.0.1',
    expected: `spec:
  version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a multi-document file with markers in two documents',
    input: `---
# the chart
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
---
apiVersion: v1
kind: ConfigMap
data:
  devVersion: 6.0.1 # {"$promotion": "flux-system:podinfo:dev"}
...
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
spec:
  postBuild:
    substitute:
      podinfoVersion: "6.0.0" # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `---
# the chart
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      version: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
---
apiVersion: v1
kind: ConfigMap
data:
  devVersion: 6.0.1 # {"$promotion": "flux-system:podinfo:dev"}
...
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
spec:
  postBuild:
    substitute:
      podinfoVersion: "6.0.1" # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 2,
    replaced: 2,
    markers: [PROD, DEV],
  },
  {
    name: 'a sequence item scalar',
    input: `images:
  - ghcr.io/stefanprodan/podinfo:6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
  - name: other
    tag: 1.0.0
`,
    marker: PROD,
    version: '6.0.1',
    expected: `images:
  - 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  - name: other
    tag: 1.0.0
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'a marker for another pipeline is untouched',
    input: `version: 6.0.0 # {"$promotion": "flux-system:other:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `version: 6.0.0 # {"$promotion": "flux-system:other:prod"}
`,
    found: 0,
    replaced: 0,
    markers: ['flux-system:other:prod'],
  },
  {
    name: 'malformed marker comments are ignored; tight JSON and extra keys are accepted',
    input: `a: 1.0.0 # {"$promotion": flux-system:podinfo:prod}
b: 1.0.0 # {"$promotion": ["flux-system:podinfo:prod"]}
c: 1.0.0 # ["$promotion", "flux-system:podinfo:prod"]
d: 1.0.0 # $promotion: flux-system:podinfo:prod
e: 1.0.0 # {"$promotion": "flux-system:podinfo:prod"} and more
f: 1.0.0 # {'$promotion': 'flux-system:podinfo:prod'}
g: 1.0.0 # {"$Promotion": "flux-system:podinfo:prod"}
h: 1.0.0 #{"$promotion":"flux-system:podinfo:prod","note":"x"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `a: 1.0.0 # {"$promotion": flux-system:podinfo:prod}
b: 1.0.0 # {"$promotion": ["flux-system:podinfo:prod"]}
c: 1.0.0 # ["$promotion", "flux-system:podinfo:prod"]
d: 1.0.0 # $promotion: flux-system:podinfo:prod
e: 1.0.0 # {"$promotion": "flux-system:podinfo:prod"} and more
f: 1.0.0 # {'$promotion': 'flux-system:podinfo:prod'}
g: 1.0.0 # {"$Promotion": "flux-system:podinfo:prod"}
h: 6.0.1 #{"$promotion":"flux-system:podinfo:prod","note":"x"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'markers not on a line-end flow scalar value are not supported: not found, not changed',
    input: `literal: | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
folded: >- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
flow: [6.0.0] # {"$promotion": "flux-system:podinfo:prod"}
flowMap: { version: 6.0.0 } # {"$promotion": "flux-system:podinfo:prod"}
inFlow: [
  6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
]
anchor: &v 6.0.0
alias: *v # {"$promotion": "flux-system:podinfo:prod"}
empty: # {"$promotion": "flux-system:podinfo:prod"}
before: # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
tagged: !!int 6 # {"$promotion": "flux-system:podinfo:prod"}
? key # {"$promotion": "flux-system:podinfo:prod"}
: value
# {"$promotion": "flux-system:podinfo:prod"}
own: line
`,
    marker: PROD,
    version: '6.0.1',
    expected: `literal: | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
folded: >- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
flow: [6.0.0] # {"$promotion": "flux-system:podinfo:prod"}
flowMap: { version: 6.0.0 } # {"$promotion": "flux-system:podinfo:prod"}
inFlow: [
  6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
]
anchor: &v 6.0.0
alias: *v # {"$promotion": "flux-system:podinfo:prod"}
empty: # {"$promotion": "flux-system:podinfo:prod"}
before: # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
tagged: !!int 6 # {"$promotion": "flux-system:podinfo:prod"}
? key # {"$promotion": "flux-system:podinfo:prod"}
: value
# {"$promotion": "flux-system:podinfo:prod"}
own: line
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
  {
    name: 'a multi-line plain value is replaced as a whole; a !!str tag is kept',
    input: `long: first
  second # {"$promotion": "flux-system:podinfo:prod"}
tagged: !!str 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '1.10',
    expected: `long: "1.10" # {"$promotion": "flux-system:podinfo:prod"}
tagged: !!str 1.10 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 2,
    replaced: 2,
    markers: [PROD],
  },
  {
    name: 'invalid YAML is left alone',
    input: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
  bad: [unclosed
`,
    marker: PROD,
    version: '6.0.1',
    expected: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
  bad: [unclosed
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
  {
    name: 'a duplicate key makes the document invalid: left alone',
    input: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
version: 6.0.0
`,
    marker: PROD,
    version: '6.0.1',
    expected: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
version: 6.0.0
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
  {
    name: 'an invalid document makes the whole file invalid',
    input: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
---
key: "unterminated
`,
    marker: PROD,
    version: '6.0.1',
    expected: `version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
---
key: "unterminated
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
];

describe('setMarkedValues', () => {
  for (const c of cases) {
    it(c.name, () => {
      const result = setMarkedValues(c.input, c.marker, c.version);
      assert.equal(result.text, c.expected);
      assert.deepEqual({ found: result.found, replaced: result.replaced }, { found: c.found, replaced: c.replaced });
    });
  }

  it('is idempotent: the second application changes nothing', () => {
    for (const c of cases) {
      const once = setMarkedValues(c.input, c.marker, c.version);
      const twice = setMarkedValues(once.text, c.marker, c.version);
      assert.equal(twice.text, once.text, c.name);
      assert.deepEqual({ found: twice.found, replaced: twice.replaced }, { found: c.found, replaced: 0 }, c.name);
    }
  });

  it('keeps the markers: the rewritten file holds the same markers', () => {
    for (const c of cases) {
      assert.deepEqual(markersIn(setMarkedValues(c.input, c.marker, c.version).text), c.markers, c.name);
    }
  });

  const quotedWhenPlainWouldNotRead = [
    '1.10',
    '2',
    'true',
    'False',
    'null',
    '~',
    '',
    '0x1F',
    '0o17',
    '1e3',
    '.inf',
    'yes',
    'off',
    '1_000',
    '1:20',
    'a: b',
    'a #b',
    'a:',
    ' 1.0.0',
    '1.0.0 ',
    '#1',
    '*x',
    '&x',
    '!x',
    '%x',
    '@x',
    '`x',
    '- x',
    '? x',
    '[x]',
    '{x}',
    '"x"',
    "'x'",
    '|x',
    '>x',
    'two\nlines',
    'tab\n',
  ];
  for (const version of quotedWhenPlainWouldNotRead) {
    it(`writes the plain value ${JSON.stringify(version)} double-quoted`, () => {
      const result = setMarkedValues(
        'spec:\n  version: 1.0.0 # {"$promotion": "flux-system:podinfo:prod"}\n',
        PROD,
        version,
      );
      assert.equal(
        result.text,
        `spec:\n  version: ${JSON.stringify(version)} # {"$promotion": "flux-system:podinfo:prod"}\n`,
      );
      assert.deepEqual({ found: result.found, replaced: result.replaced }, { found: 1, replaced: 1 });
    });
  }

  for (const version of ['6.0.1', 'v1.2.3', '6.0.0-rc.1+build.5', 'sha-1a2b3c', '-x', 'a:b', 'a#b', 'say "hi"\\']) {
    it(`keeps the plain value ${JSON.stringify(version)} plain`, () => {
      const result = setMarkedValues('version: 1.0.0 # {"$promotion": "flux-system:podinfo:prod"}\n', PROD, version);
      assert.equal(result.text, `version: ${version} # {"$promotion": "flux-system:podinfo:prod"}\n`);
    });
  }

  it('escapes inside quotes as YAML requires, falling back to double quotes when single quotes cannot hold it', () => {
    const input = `single: '1.0.0' # {"$promotion": "flux-system:podinfo:prod"}
double: "1.0.0" # {"$promotion": "flux-system:podinfo:prod"}
`;
    assert.equal(
      setMarkedValues(input, PROD, `it's "v1"\\`).text,
      `single: 'it''s "v1"\\' # {"$promotion": "flux-system:podinfo:prod"}
double: "it's \\"v1\\"\\\\" # {"$promotion": "flux-system:podinfo:prod"}
`,
    );
    assert.equal(
      setMarkedValues(input, PROD, 'two\nlines').text,
      `single: "two\\nlines" # {"$promotion": "flux-system:podinfo:prod"}
double: "two\\nlines" # {"$promotion": "flux-system:podinfo:prod"}
`,
    );
  });

  it('never throws and leaves text without markers alone', () => {
    for (const text of ['', '\n', '---\n', 'plain text', '{"$promotion": "a:b:c"}', '- [\n', '"$promotion" #\n\t: x']) {
      const result = setMarkedValues(text, 'a:b:c', '1.0.0');
      assert.deepEqual(result, { text, found: 0, replaced: 0 }, JSON.stringify(text));
      assert.deepEqual(markersIn(text), [], JSON.stringify(text));
    }
  });
});

describe('markersIn', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(markersIn(c.input), c.markers);
    });
  }
});

describe('markerFor and mayHoldMarkers', () => {
  it('builds ns:name:env', () => {
    assert.equal(markerFor('flux-system', 'podinfo-github', 'prod'), 'flux-system:podinfo-github:prod');
  });

  it('screens for the literal "$promotion", quotes included', () => {
    assert.equal(mayHoldMarkers(weaveDeployment), true);
    assert.equal(mayHoldMarkers('version: 1.0.0 # $promotion\n'), false);
    assert.equal(mayHoldMarkers('version: 1.0.0\n'), false);
  });
});
