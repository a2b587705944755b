import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../../api/routes/health.js';
import { BOT_CONFIG_ENV, BOT_STORAGE_STATE_DIR } from '../../../shared/contract/bot-config.js';
import { configSchema, parseConfig } from '../../../shared/infra/config.js';
import { serializeBotSeccompProfile } from '../../../worker/runtime/bot-seccomp-profile.js';
import {
  BOT_POD_LABELS,
  botPodManifest,
  botSecretManifest,
} from '../../../worker/runtime/kubernetes/bot-pod.js';
import { schemaProblems } from './kubernetes-schemas.js';
import {
  type KubernetesObject,
  objectId,
  parseEnvFile,
  readObjects,
  renderKustomization,
} from './kustomize.js';
import {
  type LabelSelector,
  type PodSpec,
  podLabelsOf,
  podSpecOf,
  restrictedProblems,
  selects,
} from './pod-security.js';

/**
 * deploy/kubernetes as `kubectl apply -k` applies it (the base, and the test-cluster overlay), each
 * object checked against the Kubernetes API's schemas, then what the objects say to each other:
 * references that resolve, the Pod Security level every pod passes, the settings the service reads,
 * and who may reach whom. No cluster runs here: this is what can be known without one.
 */
const SOURCE = fileURLToPath(new URL('../../../deploy/kubernetes', import.meta.url));
const EXAMPLE_SECRETS = readFileSync(join(SOURCE, 'secrets.env.example'), 'utf8');
/** What an operator of the test-cluster overlay adds to the example (hex, as it asks). */
const STORE_PASSWORDS =
  'POSTGRES_PASSWORD=5f1c0e7a9b3d2c4e6f8a0b1c\nREDIS_PASSWORD=a9b8c7d6e5f4a3b2c1d0e9f8\n';

const copies: string[] = [];
/** A copy of deploy/kubernetes with secrets.env made from the example (an operator's own is never read). */
function copyWithSecrets(extra: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'meetbot-kustomize-'));
  copies.push(directory);
  cpSync(SOURCE, directory, { recursive: true, filter: (path) => basename(path) !== 'secrets.env' });
  writeFileSync(join(directory, 'secrets.env'), `${EXAMPLE_SECRETS}\n${extra}`);
  return directory;
}

let base: KubernetesObject[];
let overlay: KubernetesObject[];
beforeAll(() => {
  base = renderKustomization(copyWithSecrets(''));
  overlay = renderKustomization(join(copyWithSecrets(STORE_PASSWORDS), 'test-cluster'));
});
afterAll(() => {
  for (const directory of copies) rmSync(directory, { recursive: true, force: true });
});

function find(
  objects: KubernetesObject[],
  kind: string,
  name: string,
  namespace = 'meetbot',
): KubernetesObject {
  const object = objects.find(
    (item) =>
      item.kind === kind && item.metadata.name === name && (item.metadata.namespace ?? '') === namespace,
  );
  if (!object) throw new Error(`no ${kind} ${namespace}/${name}`);
  return object;
}

function podSpec(objects: KubernetesObject[], kind: string, name: string, namespace = 'meetbot'): PodSpec {
  return podSpecOf(find(objects, kind, name, namespace)) as PodSpec;
}

function settings(objects: KubernetesObject[]): Record<string, string> {
  return find(objects, 'ConfigMap', 'meetbot-settings').data as Record<string, string>;
}

/** The environment the API and the workers get from envFrom: the settings, then the Secret's (which win). */
function serviceEnvironment(objects: KubernetesObject[]): Record<string, string> {
  const secret = find(objects, 'Secret', 'meetbot-secrets').data as Record<string, string>;
  const decoded = Object.fromEntries(
    Object.entries(secret).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
  return { ...settings(objects), ...decoded };
}

/** A bot pod as the Kubernetes runtime makes it (worker/runtime/kubernetes/bot-pod.ts). */
function runtimeBotPod(sandbox: boolean): KubernetesObject {
  const env = settings(base);
  const spec = {
    name: 'meetbot-bot-42-1',
    image: env.BOT_IMAGE as string,
    env: { [BOT_CONFIG_ENV]: '{}' },
    labels: { 'meetbot.deployment': 'meetbot', 'meetbot.meeting-id': '42' },
    memoryBytes: Number(env.BOT_MEMORY_MB) * 2 ** 20,
    nanoCpus: Number(env.BOT_CPUS) * 1e9,
    pidsLimit: 512,
    networkMode: 'host',
    seccompProfile: sandbox ? '{}' : null,
  };
  const options = {
    namespace: 'meetbot',
    seccompProfile: env.BOT_POD_SECCOMP_PROFILE as string,
    filesDirectory: BOT_STORAGE_STATE_DIR,
    cpuRequestCores: 0.9,
  };
  return botPodManifest(spec, options) as unknown as KubernetesObject;
}

const ids = (objects: KubernetesObject[]) => objects.map(objectId).sort();

describe('deploy/kubernetes rendered as kubectl apply -k renders it', () => {
  it('applies the service, its settings and secrets, RBAC, policies and the seccomp installer', () => {
    expect(ids(base)).toEqual(
      [
        'v1/Namespace//meetbot',
        'v1/Namespace//meetbot-seccomp',
        'v1/ServiceAccount/meetbot/default',
        'v1/ServiceAccount/meetbot/meetbot-api',
        'v1/ServiceAccount/meetbot/meetbot-worker',
        'rbac.authorization.k8s.io/v1/Role/meetbot/meetbot-worker',
        'rbac.authorization.k8s.io/v1/RoleBinding/meetbot/meetbot-worker',
        'v1/ConfigMap/meetbot/meetbot-settings',
        'v1/Secret/meetbot/meetbot-secrets',
        'apps/v1/Deployment/meetbot/meetbot-api',
        'v1/Service/meetbot/meetbot-api',
        'autoscaling/v2/HorizontalPodAutoscaler/meetbot/meetbot-api',
        'policy/v1/PodDisruptionBudget/meetbot/meetbot-api',
        'apps/v1/Deployment/meetbot/meetbot-worker',
        'v1/Service/meetbot/meetbot-worker-metrics',
        'policy/v1/PodDisruptionBudget/meetbot/meetbot-worker',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-default-deny-ingress',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-api',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-worker',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-bots',
        'v1/ConfigMap/meetbot-seccomp/meetbot-bot-seccomp',
        'apps/v1/DaemonSet/meetbot-seccomp/meetbot-seccomp-installer',
      ].sort(),
    );
    // The overlay adds its stores and their policies, and changes (patches) nothing else's identity.
    expect(ids(overlay)).toEqual(
      [
        ...ids(base),
        'apps/v1/StatefulSet/meetbot/meetbot-postgres',
        'v1/Service/meetbot/meetbot-postgres',
        'apps/v1/StatefulSet/meetbot/meetbot-redis',
        'v1/Service/meetbot/meetbot-redis',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-postgres',
        'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-redis',
      ].sort(),
    );
  });

  it('puts every namespaced object in a namespace of its own (none lands in the current context)', () => {
    for (const object of overlay) {
      if (object.kind === 'Namespace') expect(object.metadata.namespace).toBeUndefined();
      else expect(['meetbot', 'meetbot-seccomp'], objectId(object)).toContain(object.metadata.namespace);
    }
  });

  it('never reads secrets.env from the repository, which .gitignore keeps out of it', () => {
    expect(readFileSync(join(SOURCE, '.gitignore'), 'utf8').split('\n')).toContain('secrets.env');
    const secret = find(base, 'Secret', 'meetbot-secrets');
    expect(Object.keys(secret.data as object)).toEqual(
      parseEnvFile(EXAMPLE_SECRETS, 'example').map(([key]) => key),
    );
  });
});

describe('the Kubernetes API schemas (1.34)', () => {
  it('accept every object of the base and of the test-cluster overlay', async () => {
    const problems = (await Promise.all(overlay.map(schemaProblems))).flat();
    const baseProblems = (await Promise.all(base.map(schemaProblems))).flat();
    expect([...baseProblems, ...problems]).toEqual([]);
  });

  it('accept the optional ServiceMonitor (its CRD: types and required fields only)', async () => {
    const [monitor, ...rest] = readObjects(join(SOURCE, 'extras', 'service-monitor.yaml'));
    expect(rest).toEqual([]);
    expect(await schemaProblems(monitor as KubernetesObject)).toEqual([]);
  });

  it('accept the bot pod and Secret the runtime makes', async () => {
    const pod = runtimeBotPod(true);
    const secret = botSecretManifest(
      {
        name: 'meetbot-bot-42-1',
        image: 'meetbot/bot:latest',
        env: { [BOT_CONFIG_ENV]: '{}' },
        labels: {},
        memoryBytes: 2 ** 30,
        nanoCpus: 1e9,
        pidsLimit: 512,
        networkMode: 'host',
        seccompProfile: '{}',
      },
      {
        namespace: 'meetbot',
        seccompProfile: 'RuntimeDefault',
        filesDirectory: BOT_STORAGE_STATE_DIR,
        cpuRequestCores: 1,
      },
    ) as unknown as KubernetesObject;
    expect([...(await schemaProblems(pod)), ...(await schemaProblems(secret))]).toEqual([]);
  });

  it('refuse an unknown field, a wrong type, a value outside an enum and a missing required field', async () => {
    const deployment = structuredClone(find(base, 'Deployment', 'meetbot-worker'));
    const template = (deployment.spec as { template: { spec: PodSpec & Record<string, unknown> } }).template;
    const container = template.spec.containers[0] as unknown as Record<string, unknown>;
    container.imagePullPolicy = 'Sometimes';
    container.resources = { requests: { cpu: 'lots' } };
    (container.ports as Record<string, unknown>[])[0] = { name: 'metrics', containerPort: '9464' };
    (container.securityContext as Record<string, unknown>).runAsNonroot = true;
    template.spec.terminationGracePeriod = 45;
    delete (deployment.spec as Record<string, unknown>).selector;
    const problems = (await schemaProblems(deployment)).join('\n');
    expect(problems).toContain('imagePullPolicy must be equal to one of the allowed values');
    expect(problems).toContain('/resources/requests/cpu must match format "quantity"');
    expect(problems).toContain('containerPort must be integer');
    expect(problems).toContain('unknown field "runAsNonroot"');
    expect(problems).toContain('unknown field "terminationGracePeriod"');
    expect(problems).toContain('/spec must have required property selector');
  });
});

/**
 * Checks of the API server's own (Go) validation that the OpenAPI schemas don't carry: name and
 * label syntax, port names, data keys, and a NetworkPolicy's address blocks.
 */
function serverValidationProblems(object: KubernetesObject): string[] {
  const problems: string[] = [];
  const at = objectId(object);
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(`${at}: ${what}`);
  };
  const dns1123Label = (value: string) => value.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value);
  const dns1123Subdomain = (value: string) =>
    value.length <= 253 && value.split('.').every((part) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(part));
  const labelValue = (value: string) =>
    value.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value);
  const labelKey = (key: string) => {
    const [prefix, name] = key.includes('/') ? (key.split('/', 2) as [string, string]) : [undefined, key];
    return (
      (prefix === undefined || dns1123Subdomain(prefix)) &&
      name.length <= 63 &&
      /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)
    );
  };
  const portName = (value: string) =>
    value.length <= 15 && /^[a-z0-9-]+$/.test(value) && /[a-z]/.test(value) && !/^-|-$|--/.test(value);
  const labels = (map: Record<string, string> | undefined, where: string) => {
    for (const [key, value] of Object.entries(map ?? {})) {
      check(labelKey(key), `${where} label key ${key}`);
      check(labelValue(value), `${where} label value ${value}`);
    }
  };

  const name = object.metadata.name;
  if (object.kind === 'Namespace') check(dns1123Label(name), `name ${name}`);
  else if (object.kind === 'Service')
    check(name.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name), `name ${name}`);
  else check(dns1123Subdomain(name), `name ${name}`);
  labels(object.metadata.labels, 'metadata');
  if (object.kind === 'ConfigMap' || object.kind === 'Secret')
    for (const key of Object.keys((object.data ?? {}) as object))
      check(/^[-._a-zA-Z0-9]+$/.test(key), `data key ${key}`);

  const spec = object.spec as Record<string, unknown> | undefined;
  labels((spec?.selector as LabelSelector | undefined)?.matchLabels, 'selector');
  if (object.kind === 'Service')
    for (const port of (spec?.ports ?? []) as { name: string }[])
      check(portName(port.name), `port name ${port.name}`);
  const pod = podSpecOf(object);
  if (pod) {
    labels(podLabelsOf(object), 'pod template');
    const containers = [...pod.containers, ...(pod.initContainers ?? [])] as unknown as {
      name: string;
      ports?: { name?: string }[];
      env?: { name: string }[];
    }[];
    for (const container of containers) {
      check(dns1123Label(container.name), `container name ${container.name}`);
      for (const port of container.ports ?? [])
        check(port.name === undefined || portName(port.name), `port ${port.name}`);
      for (const variable of container.env ?? [])
        check(/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(variable.name), `variable ${variable.name}`);
    }
  }
  if (object.kind === 'NetworkPolicy') {
    const policy = spec as unknown as PolicySpec;
    const peers = [...(policy.ingress ?? []), ...(policy.egress ?? [])].flatMap((rule) => [
      ...(rule.from ?? []),
      ...(rule.to ?? []),
    ]);
    for (const block of peers.flatMap((peer) => (peer.ipBlock ? [peer.ipBlock] : []))) {
      const parsed = parseCidr(block.cidr);
      check(parsed !== undefined, `CIDR ${block.cidr}`);
      for (const except of block.except ?? []) {
        const inner = parseCidr(except);
        check(
          inner !== undefined &&
            parsed !== undefined &&
            inner.family === parsed.family &&
            inner.prefix >= parsed.prefix &&
            inBlock(inner.network, { cidr: block.cidr }),
          `except ${except} inside ${block.cidr}`,
        );
      }
    }
  }
  return problems;
}

function parseCidr(cidr: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (!match) return undefined;
  const [, network, bits] = match as unknown as [string, string, string];
  const family = isIPv6(network) ? 'ipv6' : isIPv4(network) ? 'ipv4' : undefined;
  const prefix = Number(bits);
  if (!family || prefix > (family === 'ipv6' ? 128 : 32)) return undefined;
  return { network, prefix, family };
}

describe('what the objects say to each other', () => {
  it("pass the API server's checks that the schemas do not carry (names, labels, ports, address blocks)", () => {
    expect(overlay.flatMap(serverValidationProblems)).toEqual([]);
    expect(serverValidationProblems(runtimeBotPod(true))).toEqual([]);
    const broken = structuredClone(find(base, 'NetworkPolicy', 'meetbot-bots'));
    const egress = (broken.spec as PolicySpec).egress as Rule[];
    egress[2]!.to![0]!.ipBlock!.except!.push('8.8.8.0/24', 'fc00::/7');
    egress[1]!.to![0]!.ipBlock!.cidr = '192.0.2.300/32';
    broken.metadata.labels = { 'app.kubernetes.io/component': 'bot pod' };
    expect(serverValidationProblems(broken)).toEqual([
      'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-bots: metadata label value bot pod',
      'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-bots: CIDR 192.0.2.300/32',
      'networking.k8s.io/v1/NetworkPolicy/meetbot/meetbot-bots: except fc00::/7 inside 0.0.0.0/0',
    ]);
  });

  it('every ServiceAccount, ConfigMap, Secret and key a pod names is applied with it', () => {
    for (const objects of [base, overlay]) {
      for (const object of objects) {
        const spec = podSpecOf(object) as (PodSpec & Record<string, unknown>) | undefined;
        if (!spec) continue;
        const namespace = object.metadata.namespace as string;
        const at = objectId(object);
        // Every namespace has its `default` account (the controller makes it); others are applied here.
        const account = spec.serviceAccountName as string | undefined;
        if (account !== undefined && account !== 'default')
          find(objects, 'ServiceAccount', account, namespace);
        const containers = [...spec.containers, ...(spec.initContainers ?? [])] as unknown as {
          envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
          env?: { name: string; value?: string; valueFrom?: Record<string, { name: string; key: string }> }[];
        }[];
        for (const container of containers) {
          for (const source of container.envFrom ?? []) {
            if (source.configMapRef) find(objects, 'ConfigMap', source.configMapRef.name, namespace);
            if (source.secretRef) find(objects, 'Secret', source.secretRef.name, namespace);
          }
          for (const variable of container.env ?? []) {
            const secretKey = variable.valueFrom?.secretKeyRef;
            if (secretKey)
              expect(
                Object.keys(find(objects, 'Secret', secretKey.name, namespace).data as object),
                at,
              ).toContain(secretKey.key);
            const configKey = variable.valueFrom?.configMapKeyRef;
            if (configKey)
              expect(
                Object.keys(find(objects, 'ConfigMap', configKey.name, namespace).data as object),
                at,
              ).toContain(configKey.key);
          }
        }
        for (const volume of (spec.volumes ?? []) as {
          configMap?: { name: string };
          secret?: { secretName: string };
        }[]) {
          if (volume.configMap) find(objects, 'ConfigMap', volume.configMap.name, namespace);
          if (volume.secret) find(objects, 'Secret', volume.secret.secretName, namespace);
        }
      }
    }
  });

  it('every Service, PodDisruptionBudget and autoscaler finds the pods it is for', () => {
    for (const objects of [base, overlay]) {
      const workloads = objects.filter((object) => podSpecOf(object) !== undefined);
      for (const object of objects) {
        const at = objectId(object);
        const namespace = object.metadata.namespace;
        const matching = (selector: LabelSelector) =>
          workloads.filter(
            (workload) =>
              workload.metadata.namespace === namespace && selects(selector, podLabelsOf(workload)),
          );
        if (object.kind === 'Service') {
          const spec = object.spec as {
            selector: Record<string, string>;
            ports: { targetPort: string | number }[];
          };
          const targets = matching({ matchLabels: spec.selector });
          expect(targets.length, at).toBe(1);
          const ports = (
            podSpecOf(targets[0] as KubernetesObject) as unknown as {
              containers: { ports?: { name: string }[] }[];
            }
          ).containers.flatMap((container) => (container.ports ?? []).map((port) => port.name));
          for (const port of spec.ports) expect(ports, at).toContain(port.targetPort);
        }
        if (object.kind === 'PodDisruptionBudget')
          expect(matching((object.spec as { selector: LabelSelector }).selector).length, at).toBe(1);
        if (object.kind === 'Deployment' || object.kind === 'StatefulSet' || object.kind === 'DaemonSet') {
          const spec = object.spec as { selector: LabelSelector };
          // A selector that selects its own pods, and no other workload's.
          expect(matching(spec.selector).map(objectId), at).toEqual([at]);
        }
        if (object.kind === 'HorizontalPodAutoscaler') {
          const target = (object.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef;
          const scaled = find(objects, target.kind, target.name);
          // The autoscaler owns the replica count: a value in the Deployment would reset it at every apply.
          expect((scaled.spec as { replicas?: number }).replicas, at).toBeUndefined();
        }
      }
    }
  });

  it('no Deployment, StatefulSet, DaemonSet, Service or disruption budget selects bot pods', () => {
    const bot = podLabelsOf(runtimeBotPod(true));
    expect(bot).toMatchObject(BOT_POD_LABELS);
    for (const object of overlay) {
      const selector = (object.spec as { selector?: LabelSelector } | undefined)?.selector;
      if (selector && object.kind !== 'Service') expect(selects(selector, bot), objectId(object)).toBe(false);
      if (object.kind === 'Service')
        expect(
          selects({ matchLabels: (object.spec as { selector: Record<string, string> }).selector }, bot),
        ).toBe(false);
    }
  });
});

describe('the settings', () => {
  it('are settings the service reads, and with the example secrets make a valid configuration', () => {
    const known = new Set(Object.keys(configSchema.shape));
    const env = serviceEnvironment(base);
    expect(Object.keys(env).filter((key) => !known.has(key))).toEqual([]);
    const config = parseConfig({ ...env, WORKER_ID: 'meetbot-worker-7d9f8c6b5-x2k4q' });
    expect(config).toMatchObject({
      BOT_RUNTIME: 'kubernetes',
      BOT_CHROMIUM_SANDBOX: 'on',
      BOT_POD_SECCOMP_PROFILE: 'meetbot/bot-seccomp.json',
      API_HOST: '0.0.0.0',
      WORKER_METRICS_HOST: '0.0.0.0',
      RECORDING_STORAGE: 's3',
    });
    // An empty key is unset: the example turns on no admin key and no credentials by itself.
    expect(config.ADMIN_API_KEY).toBeUndefined();
    expect(config.S3_ACCESS_KEY_ID).toBeUndefined();
  });

  it('give the API and the workers the time to shut down before the kubelet kills them', () => {
    const config = parseConfig(serviceEnvironment(base));
    for (const name of ['meetbot-api', 'meetbot-worker']) {
      const spec = podSpec(base, 'Deployment', name) as PodSpec & { terminationGracePeriodSeconds: number };
      const preStop = (
        spec.containers[0] as unknown as { lifecycle?: { preStop?: { exec: { command: string[] } } } }
      ).lifecycle?.preStop?.exec.command;
      const pauseMs = preStop ? Number(preStop[1]) * 1000 : 0;
      expect(spec.terminationGracePeriodSeconds * 1000, name).toBeGreaterThanOrEqual(
        config.SHUTDOWN_TIMEOUT_MS + pauseMs,
      );
    }
  });

  it('name each worker after its pod, run two, and serve the ports Prometheus is told of', () => {
    const config = parseConfig(serviceEnvironment(base));
    const worker = find(base, 'Deployment', 'meetbot-worker');
    expect((worker.spec as { replicas: number }).replicas).toBe(2);
    const container = podSpec(base, 'Deployment', 'meetbot-worker').containers[0] as unknown as {
      command: string[];
      env: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
      ports: { name: string; containerPort: number }[];
    };
    expect(container.command).toEqual(['node', 'dist/worker/main.js']);
    expect(
      container.env.find((variable) => variable.name === 'WORKER_ID')?.valueFrom?.fieldRef?.fieldPath,
    ).toBe('metadata.name');
    const ports = {
      'meetbot-worker': config.WORKER_METRICS_PORT,
      'meetbot-api': config.API_PORT,
    };
    for (const [name, port] of Object.entries(ports)) {
      const deployment = find(base, 'Deployment', name);
      const template = (
        deployment.spec as { template: { metadata: { annotations: Record<string, string> } } }
      ).template;
      expect(template.metadata.annotations, name).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      const containerPorts = (
        podSpecOf(deployment) as unknown as { containers: { ports: { containerPort: number }[] }[] }
      ).containers[0]?.ports.map((item) => item.containerPort);
      expect(containerPorts, name).toEqual([port]);
    }
  });

  it("run the migrations in the API's pods only, one replica at first", () => {
    const migrators = overlay.filter((object) =>
      [...(podSpecOf(object)?.containers ?? []), ...(podSpecOf(object)?.initContainers ?? [])].some(
        (container) =>
          (container as unknown as { command?: string[] }).command?.includes('dist/scripts/migrate.js'),
      ),
    );
    expect(migrators.map(objectId)).toEqual(['apps/v1/Deployment/meetbot/meetbot-api']);
    const api = podSpec(base, 'Deployment', 'meetbot-api');
    expect(api.initContainers?.map((container) => container.name)).toEqual(['migrate']);
  });

  it("probe the API's health routes", () => {
    const paths = healthRoutes.map((route) => route.path);
    const api = podSpec(base, 'Deployment', 'meetbot-api').containers[0] as unknown as Record<
      string,
      { httpGet: { path: string; port: string } }
    >;
    expect(api.readinessProbe?.httpGet.path).toBe('/readyz');
    expect(api.livenessProbe?.httpGet.path).toBe('/healthz');
    expect(paths).toEqual(expect.arrayContaining(['/readyz', '/healthz']));
  });
});

describe('containment', () => {
  it('the namespace enforces the restricted Pod Security level, and every pod in it passes', () => {
    const namespace = find(base, 'Namespace', 'meetbot', '');
    expect(namespace.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    const pods = overlay.filter((object) => object.metadata.namespace === 'meetbot' && podSpecOf(object));
    expect(pods.length).toBe(4);
    const problems = pods.flatMap((object) =>
      restrictedProblems(podSpecOf(object) as PodSpec, objectId(object)),
    );
    // The bot pods the runtime makes, with Chromium's sandbox and without.
    problems.push(...restrictedProblems(podSpecOf(runtimeBotPod(true)) as PodSpec, 'bot pod'));
    problems.push(
      ...restrictedProblems(podSpecOf(runtimeBotPod(false)) as PodSpec, 'bot pod without sandbox'),
    );
    expect(problems).toEqual([]);
  });

  it("bot pods run under the profile the installer writes, which is the bots' profile (rewrite it with `npx tsx scripts/write-bot-seccomp.ts`)", () => {
    const profile = find(base, 'ConfigMap', 'meetbot-bot-seccomp', 'meetbot-seccomp').data as Record<
      string,
      string
    >;
    expect(profile['bot-seccomp.json']).toBe(serializeBotSeccompProfile());
    const installer = podSpec(
      base,
      'DaemonSet',
      'meetbot-seccomp-installer',
      'meetbot-seccomp',
    ) as unknown as {
      volumes: { name: string; hostPath?: { path: string }; configMap?: { name: string } }[];
      tolerations: { operator: string }[];
    };
    const hostPath = installer.volumes.find((volume) => volume.hostPath)?.hostPath?.path;
    const botPod = runtimeBotPod(true).spec as {
      securityContext: { seccompProfile: Record<string, string> };
    };
    expect(botPod.securityContext.seccompProfile).toEqual({
      type: 'Localhost',
      localhostProfile: 'meetbot/bot-seccomp.json',
    });
    expect(`/var/lib/kubelet/seccomp/${botPod.securityContext.seccompProfile.localhostProfile}`).toBe(
      `${hostPath}/bot-seccomp.json`,
    );
    expect(installer.volumes.find((volume) => volume.configMap)?.configMap?.name).toBe('meetbot-bot-seccomp');
    // On every node a bot may land on, whatever its taints.
    expect(installer.tolerations).toEqual([{ operator: 'Exists' }]);
    // The one host path of the deployment, in a namespace that allows it.
    const hostPaths = overlay.filter((object) =>
      ((podSpecOf(object)?.volumes ?? []) as { hostPath?: unknown }[]).some((volume) => volume.hostPath),
    );
    expect(hostPaths.map(objectId)).toEqual(['apps/v1/DaemonSet/meetbot-seccomp/meetbot-seccomp-installer']);
    expect(find(base, 'Namespace', 'meetbot-seccomp', '').metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'privileged',
    });
  });

  it('only the workers hold a token for the Kubernetes API', () => {
    for (const object of overlay) {
      const spec = podSpecOf(object) as (PodSpec & { automountServiceAccountToken?: boolean }) | undefined;
      if (!spec) continue;
      expect(spec.automountServiceAccountToken, objectId(object)).toBe(
        object.metadata.name === 'meetbot-worker',
      );
    }
    expect(
      (runtimeBotPod(true).spec as { automountServiceAccountToken: boolean }).automountServiceAccountToken,
    ).toBe(false);
    expect(find(base, 'ServiceAccount', 'default').automountServiceAccountToken).toBe(false);
  });
});

interface Peer {
  ipBlock?: { cidr: string; except?: string[] };
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}
interface Rule {
  to?: Peer[];
  from?: Peer[];
  ports?: { port: number; protocol: string }[];
}
interface PolicySpec {
  podSelector: LabelSelector;
  policyTypes: string[];
  ingress?: Rule[];
  egress?: Rule[];
}

const policiesFor = (objects: KubernetesObject[], labels: Record<string, string>, type: string) =>
  objects
    .filter((object) => object.kind === 'NetworkPolicy')
    .map((object) => object.spec as PolicySpec)
    .filter((spec) => selects(spec.podSelector, labels) && spec.policyTypes.includes(type));

function inBlock(address: string, block: { cidr: string; except?: string[] }): boolean {
  const list = (cidr: string) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    const blocks = new BlockList();
    blocks.addSubnet(network, Number(prefix), isIPv6(network) ? 'ipv6' : 'ipv4');
    return blocks;
  };
  const family = isIPv6(address) ? 'ipv6' : 'ipv4';
  const [network] = block.cidr.split('/') as [string];
  if ((isIPv6(network) ? 'ipv6' : 'ipv4') !== family) return false;
  return (
    list(block.cidr).check(address, family) &&
    !(block.except ?? []).some((cidr) => list(cidr).check(address, family))
  );
}

/** Whether the bots' egress rules let a bot pod open a connection to this address (any port). */
function botMayReachAddress(objects: KubernetesObject[], address: string): boolean {
  return policiesFor(objects, BOT_POD_LABELS, 'Egress').some((spec) =>
    (spec.egress ?? []).some((rule) =>
      (rule.to ?? []).some((peer) => peer.ipBlock && inBlock(address, peer.ipBlock)),
    ),
  );
}

describe('who may reach whom (NetworkPolicies)', () => {
  const PRIVATE = [
    '10.96.0.1', // a typical Service address (the Kubernetes API's)
    '10.244.1.17', // a pod
    '172.20.3.4',
    '192.168.1.10', // a node
    '169.254.169.254', // the cloud's metadata service
    '100.64.0.10', // carrier-grade NAT, some clusters' pods
    'fd00:10:96::1',
    'fe80::1',
  ];

  it('a bot reaches the internet, and no private, link-local or CGNAT address but the Redis it is given', () => {
    for (const address of ['8.8.8.8', '142.250.74.110', '52.112.0.1', '2001:4860:4860::8888'])
      expect(botMayReachAddress(base, address), address).toBe(true);
    for (const address of PRIVATE) expect(botMayReachAddress(base, address), address).toBe(false);
    const [policy, ...others] = policiesFor(base, BOT_POD_LABELS, 'Egress');
    expect(others).toEqual([]);
    const redis = (policy as PolicySpec).egress?.[1];
    expect(redis).toEqual({
      to: [{ ipBlock: { cidr: '192.0.2.10/32' } }],
      ports: [{ port: 6379, protocol: 'TCP' }],
    });
    // DNS, from the cluster's resolver only.
    expect((policy as PolicySpec).egress?.[0]?.to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ]);
  });

  it('nothing connects to a bot; the API and workers take connections on their ports only', () => {
    const ingress = (labels: Record<string, string>) =>
      policiesFor(base, labels, 'Ingress').flatMap((spec) => spec.ingress ?? []);
    expect(ingress(BOT_POD_LABELS)).toEqual([]);
    expect(ingress({ 'app.kubernetes.io/name': 'meetbot', 'app.kubernetes.io/component': 'api' })).toEqual([
      { ports: [{ port: 8056, protocol: 'TCP' }] },
    ]);
    expect(ingress({ 'app.kubernetes.io/name': 'meetbot', 'app.kubernetes.io/component': 'worker' })).toEqual(
      [{ ports: [{ port: 9464, protocol: 'TCP' }] }],
    );
    // Every pod of the namespace is covered by the default deny.
    expect(policiesFor(base, { anything: 'else' }, 'Ingress').length).toBe(1);
  });

  it('on the test cluster, bots reach its Redis and not its Postgres', () => {
    const redisLabels = podLabelsOf(find(overlay, 'StatefulSet', 'meetbot-redis'));
    const postgresLabels = podLabelsOf(find(overlay, 'StatefulSet', 'meetbot-postgres'));
    const botEgress = policiesFor(overlay, BOT_POD_LABELS, 'Egress').flatMap((spec) => spec.egress ?? []);
    const reachesPod = (labels: Record<string, string>) =>
      botEgress.some((rule) =>
        (rule.to ?? []).some(
          (peer) => peer.podSelector && !peer.namespaceSelector && selects(peer.podSelector, labels),
        ),
      );
    expect(reachesPod(redisLabels)).toBe(true);
    expect(reachesPod(postgresLabels)).toBe(false);
    for (const address of PRIVATE) expect(botMayReachAddress(overlay, address), address).toBe(false);

    const admits = (storeLabels: Record<string, string>, client: Record<string, string>) =>
      policiesFor(overlay, storeLabels, 'Ingress')
        .flatMap((spec) => spec.ingress ?? [])
        .some((rule) =>
          (rule.from ?? []).some((peer) => peer.podSelector && selects(peer.podSelector, client)),
        );
    const api = podLabelsOf(find(overlay, 'Deployment', 'meetbot-api'));
    const worker = podLabelsOf(find(overlay, 'Deployment', 'meetbot-worker'));
    expect([
      admits(postgresLabels, api),
      admits(postgresLabels, worker),
      admits(postgresLabels, BOT_POD_LABELS),
    ]).toEqual([true, true, false]);
    expect([
      admits(redisLabels, api),
      admits(redisLabels, worker),
      admits(redisLabels, BOT_POD_LABELS),
    ]).toEqual([true, true, true]);
  });
});

describe('the test-cluster overlay', () => {
  it('points the API, the workers and their migrations at its stores, with the passwords of the Secret', () => {
    const secret = serviceEnvironment(overlay);
    for (const name of ['meetbot-api', 'meetbot-worker']) {
      const spec = podSpec(overlay, 'Deployment', name);
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const env = (container as unknown as { env: { name: string; value?: string }[] }).env;
        // What the kubelet does: $(NAME) from the variables defined before, the Secret's through envFrom.
        const defined: Record<string, string> = { ...secret };
        for (const variable of env) {
          defined[variable.name] =
            variable.value?.replace(
              /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
              (whole, key: string) => defined[key] ?? whole,
            ) ?? (secret[variable.name] as string);
        }
        const config = parseConfig({ ...defined, WORKER_ID: 'meetbot-worker-0' });
        expect(config.DATABASE_URL, `${name}/${container.name}`).toBe(
          'postgres://meetbot:5f1c0e7a9b3d2c4e6f8a0b1c@meetbot-postgres:5432/meetbot',
        );
        expect(config.REDIS_URL, `${name}/${container.name}`).toBe(
          'redis://:a9b8c7d6e5f4a3b2c1d0e9f8@meetbot-redis:6379',
        );
      }
    }
    const worker = podSpec(overlay, 'Deployment', 'meetbot-worker').containers[0] as unknown as {
      env: { name: string }[];
    };
    expect(worker.env[0]?.name).toBe('WORKER_ID');
  });

  it('runs one replica of each store, on a volume', () => {
    for (const name of ['meetbot-postgres', 'meetbot-redis']) {
      const spec = find(overlay, 'StatefulSet', name).spec as {
        replicas: number;
        volumeClaimTemplates: unknown[];
      };
      expect(spec.replicas).toBe(1);
      expect(spec.volumeClaimTemplates.length).toBe(1);
    }
  });
});
