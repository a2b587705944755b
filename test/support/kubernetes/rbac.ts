import { z } from 'zod';
import { forbidden } from './api-errors.js';

/**
 * RBAC as the API server's authorizer applies one Role bound to the double's service account
 * (https://kubernetes.io/docs/reference/access-authn-authz/rbac/): a request is allowed when one
 * rule names its API group (or `*`), its resource (`pods`; `pods/log` for a subresource; `*`; or a
 * star, a slash and the subresource for that subresource of any resource) and its verb (or `*`),
 * and, when the rule lists resourceNames, the object's
 * name. A Role is namespaced: it grants nothing at the cluster scope or in another namespace.
 * Without a Role, everything is allowed. Every decision is recorded.
 */
export const PolicyRuleSchema = z.looseObject({
  apiGroups: z.array(z.string()).default([]),
  resources: z.array(z.string()).default([]),
  verbs: z.array(z.string()),
  resourceNames: z.array(z.string()).optional(),
});
export type PolicyRule = z.input<typeof PolicyRuleSchema>;

export const RoleSchema = z.looseObject({
  metadata: z.looseObject({ namespace: z.string().optional(), name: z.string().optional() }).optional(),
  rules: z.array(PolicyRuleSchema),
});
/** A `rbac.authorization.k8s.io/v1` Role, as its YAML reads (only `rules` is needed). */
export type Role = z.input<typeof RoleSchema>;

export interface RequestAttributes {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  /** The object's name: the URL's, or a list's `metadata.name=` field selector. */
  name?: string;
  /** Absent for a cluster-scoped request (nodes, or a list across namespaces). */
  namespace?: string;
}

export interface UsedPermission {
  verb: string;
  apiGroup: string;
  /** `pods`, or `pods/log` for a subresource, as a Role's rules name it. */
  resource: string;
  allowed: boolean;
}

function ruleAllows(rule: z.output<typeof PolicyRuleSchema>, request: RequestAttributes): boolean {
  const combined = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const verbMatches = rule.verbs.includes('*') || rule.verbs.includes(request.verb);
  const groupMatches = rule.apiGroups.includes('*') || rule.apiGroups.includes(request.apiGroup);
  const resourceMatches = rule.resources.some(
    (resource) =>
      resource === '*' ||
      resource === combined ||
      (request.subresource !== undefined && resource === `*/${request.subresource}`),
  );
  const nameMatches =
    !rule.resourceNames?.length || (request.name !== undefined && rule.resourceNames.includes(request.name));
  return verbMatches && groupMatches && resourceMatches && nameMatches;
}

export class Authorizer {
  private role: z.output<typeof RoleSchema> | undefined;
  private readonly used = new Map<string, UsedPermission>();

  constructor(
    /** The user the token authenticates, e.g. `system:serviceaccount:meetbot:meetbot-worker`. */
    readonly user: string,
    role: Role | undefined,
  ) {
    this.setRole(role);
  }

  setRole(role: Role | undefined): void {
    this.role = role === undefined ? undefined : RoleSchema.parse(role);
  }

  /** Throws 403 Forbidden, worded as the API server words it, unless the role allows the request. */
  authorize(request: RequestAttributes): void {
    const allowed = this.allows(request);
    const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
    const key = `${request.verb} ${request.apiGroup} ${resource}`;
    const previous = this.used.get(key);
    this.used.set(key, {
      verb: request.verb,
      apiGroup: request.apiGroup,
      resource,
      allowed: allowed && (previous?.allowed ?? true),
    });
    if (allowed) return;
    // k8s.io/apiserver/pkg/endpoints/handlers/responsewriters: forbiddenMessage
    const scope = request.namespace ? `in the namespace "${request.namespace}"` : 'at the cluster scope';
    const why = `User "${this.user}" cannot ${request.verb} resource "${resource}" in API group "${request.apiGroup}" ${scope}`;
    throw forbidden({ group: request.apiGroup, resource: request.resource }, request.name, why);
  }

  private allows(request: RequestAttributes): boolean {
    if (!this.role) return true;
    if (request.namespace === undefined) return false;
    const roleNamespace = this.role.metadata?.namespace;
    if (roleNamespace !== undefined && roleNamespace !== request.namespace) return false;
    return this.role.rules.some((rule) => ruleAllows(rule, request));
  }

  /** Every (verb, group, resource) asked for since the start or the last reset, sorted. */
  usedPermissions(): UsedPermission[] {
    return [...this.used.values()].sort((a, b) =>
      `${a.apiGroup} ${a.resource} ${a.verb}`.localeCompare(`${b.apiGroup} ${b.resource} ${b.verb}`),
    );
  }

  resetUsedPermissions(): void {
    this.used.clear();
  }
}

/**
 * The (verb, group, resource) triples a Role's rules grant, for comparing with what was used. Rules
 * with `*` verbs or resources can't be listed this way and are refused.
 */
export function grantedPermissions(role: Role): Array<Omit<UsedPermission, 'allowed'>> {
  const parsed = RoleSchema.parse(role);
  const granted = new Map<string, Omit<UsedPermission, 'allowed'>>();
  for (const rule of parsed.rules) {
    for (const group of rule.apiGroups)
      for (const resource of rule.resources)
        for (const verb of rule.verbs) {
          if ([group, resource, verb].includes('*'))
            throw new Error('a rule with * grants more than can be listed');
          granted.set(`${verb} ${group} ${resource}`, { verb, apiGroup: group, resource });
        }
  }
  return [...granted.values()].sort((a, b) =>
    `${a.apiGroup} ${a.resource} ${a.verb}`.localeCompare(`${b.apiGroup} ${b.resource} ${b.verb}`),
  );
}
