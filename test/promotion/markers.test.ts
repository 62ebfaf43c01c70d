import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markerFor, markersIn, mayHoldMarkers, parseMarker, setMarkedValues } from '../../lib/promotion/markers.js';

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
    name: 'markers that are still not supported (flow collections, aliases, keys, collections): not found, not changed',
    input: `flow: [6.0.0] # {"$promotion": "flux-system:podinfo:prod"}
flowMap: { version: 6.0.0 } # {"$promotion": "flux-system:podinfo:prod"}
inFlow: [
  6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
]
anchor: &v 6.0.0
alias: *v # {"$promotion": "flux-system:podinfo:prod"}
custom: !custom 6 # {"$promotion": "flux-system:podinfo:prod"}
? key # {"$promotion": "flux-system:podinfo:prod"}
: value
# {"$promotion": "flux-system:podinfo:prod"}
map:
  version: 6.0.0
# {"$promotion": "flux-system:podinfo:prod"}
list:
  - 6.0.0
script: |
  # {"$promotion": "flux-system:podinfo:prod"}
  version: 6.0.0
`,
    marker: PROD,
    version: '6.0.1',
    expected: `flow: [6.0.0] # {"$promotion": "flux-system:podinfo:prod"}
flowMap: { version: 6.0.0 } # {"$promotion": "flux-system:podinfo:prod"}
inFlow: [
  6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
]
anchor: &v 6.0.0
alias: *v # {"$promotion": "flux-system:podinfo:prod"}
custom: !custom 6 # {"$promotion": "flux-system:podinfo:prod"}
? key # {"$promotion": "flux-system:podinfo:prod"}
: value
# {"$promotion": "flux-system:podinfo:prod"}
map:
  version: 6.0.0
# {"$promotion": "flux-system:podinfo:prod"}
list:
  - 6.0.0
script: |
  # {"$promotion": "flux-system:podinfo:prod"}
  version: 6.0.0
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
  {
    name: 'a head comment: the marker on the line directly above the key',
    input: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      # {"$promotion": "flux-system:podinfo:prod"}
      version: 6.0.0
      sourceRef:
        kind: HelmRepository
        name: podinfo
`,
    marker: PROD,
    version: '6.0.1',
    expected: `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  chart:
    spec:
      chart: podinfo
      # {"$promotion": "flux-system:podinfo:prod"}
      version: 6.0.1
      sourceRef:
        kind: HelmRepository
        name: podinfo
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'head comments: the first key of a mapping or a document, under other comment lines, over a plain comment, CRLF',
    input:
      '# {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      'first: 6.0.0\r\n' +
      'values:\r\n' +
      '  # {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      "  tag: '6.0.0' # the image tag\r\n" +
      '  # Keep in step with the chart.\r\n' +
      '  # {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      '  other: "6.0.0"\r\n',
    marker: PROD,
    version: '6.0.1',
    expected:
      '# {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      'first: 6.0.1\r\n' +
      'values:\r\n' +
      '  # {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      "  tag: '6.0.1' # the image tag\r\n" +
      '  # Keep in step with the chart.\r\n' +
      '  # {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      '  other: "6.0.1"\r\n',
    found: 3,
    replaced: 3,
    markers: [PROD],
  },
  {
    name: 'a head comment on a sequence item, and one under a compact sequence key',
    input: `images:
  # {"$promotion": "flux-system:podinfo:prod"}
  - ghcr.io/stefanprodan/podinfo:6.0.0
  - other:1.0.0
tags:
# {"$promotion": "flux-system:podinfo:prod"}
- 6.0.0
`,
    marker: PROD,
    version: '6.0.1',
    expected: `images:
  # {"$promotion": "flux-system:podinfo:prod"}
  - 6.0.1
  - other:1.0.0
tags:
# {"$promotion": "flux-system:podinfo:prod"}
- 6.0.1
`,
    found: 2,
    replaced: 2,
    markers: [PROD],
  },
  {
    name: 'a head comment that is not directly above the key, or not in its mapping, is not a marker',
    input: `spec:
  # {"$promotion": "flux-system:podinfo:prod"}

  separated: 6.0.0
  nested:
    inner: 1
    # {"$promotion": "flux-system:podinfo:prod"}
  outdented: 6.0.0
  # {"$promotion": "flux-system:podinfo:prod"}
containers:
  # {"$promotion": "flux-system:podinfo:prod"}
  - image: nginx:1.22.0
    name: nginx
`,
    marker: PROD,
    version: '6.0.1',
    expected: `spec:
  # {"$promotion": "flux-system:podinfo:prod"}

  separated: 6.0.0
  nested:
    inner: 1
    # {"$promotion": "flux-system:podinfo:prod"}
  outdented: 6.0.0
  # {"$promotion": "flux-system:podinfo:prod"}
containers:
  # {"$promotion": "flux-system:podinfo:prod"}
  - image: nginx:1.22.0
    name: nginx
`,
    found: 0,
    replaced: 0,
    markers: [],
  },
  {
    name: 'a line marker wins over a head marker on the same value',
    input: `# {"$promotion": "flux-system:podinfo:dev"}
version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: DEV,
    version: '6.0.1',
    expected: `# {"$promotion": "flux-system:podinfo:dev"}
version: 6.0.0 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 0,
    replaced: 0,
    markers: [PROD],
  },
  {
    name: 'any number of # before the marker, on the line or above it',
    input: `a: 6.0.0 ## {"$promotion": "flux-system:podinfo:prod"}
b: "6.0.0" ###{"$promotion": "flux-system:podinfo:prod"}
## {"$promotion": "flux-system:podinfo:prod"}
c: 6.0.0
d: 6.0.0 # # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `a: 6.0.1 ## {"$promotion": "flux-system:podinfo:prod"}
b: "6.0.1" ###{"$promotion": "flux-system:podinfo:prod"}
## {"$promotion": "flux-system:podinfo:prod"}
c: 6.0.1
d: 6.0.0 # # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 3,
    replaced: 3,
    markers: [PROD],
  },
  {
    name: 'block scalars: the content becomes the version at its indentation, with the strip indicator',
    input: `literal: | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
stripped: |- # {"$promotion": "flux-system:podinfo:prod"}
    6.0.0
folded: > # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
foldedStripped: >- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
kept: |+ # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0

# {"$promotion": "flux-system:podinfo:prod"}
headed: |
  6.0.0
tagged: !!str | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
list:
  - | # {"$promotion": "flux-system:podinfo:prod"}
    6.0.0
  - keep
`,
    marker: PROD,
    version: '6.0.1',
    expected: `literal: |- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
stripped: |- # {"$promotion": "flux-system:podinfo:prod"}
    6.0.1
folded: >- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
foldedStripped: >- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
kept: |- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1

# {"$promotion": "flux-system:podinfo:prod"}
headed: |-
  6.0.1
tagged: !!str |- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
list:
  - |- # {"$promotion": "flux-system:podinfo:prod"}
    6.0.1
  - keep
`,
    found: 8,
    replaced: 8,
    markers: [PROD],
  },
  {
    name: 'block scalars: several lines, an empty block, an indentation indicator, CRLF, the end of the file',
    input:
      'multi: | # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '  first\n' +
      '\n' +
      '  second\n' +
      'empty: | # {"$promotion": "flux-system:podinfo:prod"}\n' +
      'spec:\n' +
      '  indented: |2 # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '    6.0.0\n' +
      '  crlf: >-\t# {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      '    6.0.0\r\n' +
      'last: | # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '  6.0.0',
    marker: PROD,
    version: '6.0.1',
    expected:
      'multi: |- # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '  6.0.1\n' +
      'empty: |- # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '  6.0.1\n' +
      'spec:\n' +
      '  indented: |2- # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '    6.0.1\n' +
      '  crlf: >-\t# {"$promotion": "flux-system:podinfo:prod"}\r\n' +
      '    6.0.1\r\n' +
      'last: |- # {"$promotion": "flux-system:podinfo:prod"}\n' +
      '  6.0.1',
    found: 5,
    replaced: 5,
    markers: [PROD],
  },
  {
    name: 'a block scalar marked for another environment is untouched',
    input: `dev: | # {"$promotion": "flux-system:podinfo:dev"}
  6.0.0
# {"$promotion": "flux-system:podinfo:dev"}
devToo: >
  6.0.0
prod: | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
`,
    marker: PROD,
    version: '6.0.1',
    expected: `dev: | # {"$promotion": "flux-system:podinfo:dev"}
  6.0.0
# {"$promotion": "flux-system:podinfo:dev"}
devToo: >
  6.0.0
prod: |- # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
`,
    found: 1,
    replaced: 1,
    markers: [DEV, PROD],
  },
  {
    name: 'a version a block scalar cannot hold is written double-quoted in its place',
    input: `literal: | # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
next: 1
`,
    marker: PROD,
    version: ' 6.0.1',
    expected: `literal: " 6.0.1" # {"$promotion": "flux-system:podinfo:prod"}
next: 1
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'an int, float, bool or null value becomes the version string: plain when it reads as one, else quoted',
    input: `spec:
  int: 6 # {"$promotion": "flux-system:podinfo:prod"}
  float: 6.0 # {"$promotion": "flux-system:podinfo:prod"}
  bool: true # {"$promotion": "flux-system:podinfo:prod"}
  none: null # {"$promotion": "flux-system:podinfo:prod"}
  tilde: ~ # {"$promotion": "flux-system:podinfo:prod"}
  # {"$promotion": "flux-system:podinfo:prod"}
  headed: 6
`,
    marker: PROD,
    version: '6.0.1',
    expected: `spec:
  int: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  float: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  bool: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  none: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  tilde: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
  # {"$promotion": "flux-system:podinfo:prod"}
  headed: 6.0.1
`,
    found: 6,
    replaced: 6,
    markers: [PROD],
  },
  {
    name: 'an int value promoted to a version that reads as a number is written double-quoted',
    input: `replicas: 6 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '7',
    expected: `replicas: "7" # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 1,
    replaced: 1,
    markers: [PROD],
  },
  {
    name: 'an explicit !!int, !!float, !!bool or !!null tag is dropped: the value is a string',
    input: `int: !!int 6 # {"$promotion": "flux-system:podinfo:prod"}
float: !!float "6.0" # {"$promotion": "flux-system:podinfo:prod"}
bool: &flag !!bool true # {"$promotion": "flux-system:podinfo:prod"}
none: !!null # {"$promotion": "flux-system:podinfo:prod"}
list:
  - !<tag:yaml.org,2002:int> 6 # {"$promotion": "flux-system:podinfo:prod"}
below: !!int
  6 # {"$promotion": "flux-system:podinfo:prod"}
`,
    marker: PROD,
    version: '6.0.1',
    expected: `int: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
float: "6.0.1" # {"$promotion": "flux-system:podinfo:prod"}
bool: &flag 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
none: 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
list:
  - 6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
below:
  6.0.1 # {"$promotion": "flux-system:podinfo:prod"}
`,
    found: 6,
    replaced: 6,
    markers: [PROD],
  },
  {
    name: 'an empty value gets the version after its indicator',
    input: `spec:
  empty: # {"$promotion": "flux-system:podinfo:prod"}
  # {"$promotion": "flux-system:podinfo:prod"}
  headed:
  anchored: &v # {"$promotion": "flux-system:podinfo:prod"}
  string: !!str # {"$promotion": "flux-system:podinfo:prod"}
  list:
    - # {"$promotion": "flux-system:podinfo:prod"}
    # {"$promotion": "flux-system:podinfo:prod"}
    -
  last: 1
`,
    marker: PROD,
    version: '7',
    expected: `spec:
  empty: "7" # {"$promotion": "flux-system:podinfo:prod"}
  # {"$promotion": "flux-system:podinfo:prod"}
  headed: "7"
  anchored: &v "7" # {"$promotion": "flux-system:podinfo:prod"}
  string: !!str 7 # {"$promotion": "flux-system:podinfo:prod"}
  list:
    - "7" # {"$promotion": "flux-system:podinfo:prod"}
    # {"$promotion": "flux-system:podinfo:prod"}
    - "7"
  last: 1
`,
    found: 6,
    replaced: 6,
    markers: [PROD],
  },
  {
    name: 'a marker after the key applies to the value on the next line',
    input: `before: # {"$promotion": "flux-system:podinfo:prod"}
  6.0.0
list:
  - # {"$promotion": "flux-system:podinfo:prod"}
    "6.0.0"
`,
    marker: PROD,
    version: '6.0.1',
    expected: `before: # {"$promotion": "flux-system:podinfo:prod"}
  6.0.1
list:
  - # {"$promotion": "flux-system:podinfo:prod"}
    "6.0.1"
`,
    found: 2,
    replaced: 2,
    markers: [PROD],
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

  const parsed: [string, ReturnType<typeof parseMarker>][] = [
    ['flux-system:podinfo-github:prod', { namespace: 'flux-system', name: 'podinfo-github', environment: 'prod' }],
    ['flux-system:podinfo', undefined],
    ['flux-system:podinfo:prod:eu', undefined],
    ['flux-system::prod', undefined],
  ];
  for (const [marker, parts] of parsed) {
    it(`parses ${marker} back into its parts, or not at all`, () => {
      assert.deepEqual(parseMarker(marker), parts);
    });
  }

  it('screens for the literal "$promotion", quotes included', () => {
    assert.equal(mayHoldMarkers(weaveDeployment), true);
    assert.equal(mayHoldMarkers('version: 1.0.0 # $promotion\n'), false);
    assert.equal(mayHoldMarkers('version: 1.0.0\n'), false);
  });
});
