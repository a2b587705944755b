/**
 * apimachinery's name and label checks (k8s.io/apimachinery/pkg/util/validation), each answering
 * the problems with a value in the API server's words, none when it is valid.
 */
const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const CONFIG_KEY = '[-._a-zA-Z0-9]+';
const ENV_VAR_NAME = '[-._a-zA-Z][-._a-zA-Z0-9]*';

const whole = (pattern: string) => new RegExp(`^${pattern}$`);

const SUBDOMAIN_MESSAGE = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`;
const LABEL_MESSAGE = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`;

/** Names of most objects (pods, secrets): DNS-1123 subdomains of at most 253 characters. */
export function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!whole(DNS1123_SUBDOMAIN).test(value)) problems.push(SUBDOMAIN_MESSAGE);
  return problems;
}

/** Container, volume and namespace names: DNS-1123 labels of at most 63 characters. */
export function dns1123LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!whole(DNS1123_LABEL).test(value)) problems.push(LABEL_MESSAGE);
  return problems;
}

/** Label and annotation keys: an optional DNS-1123 subdomain prefix and `/`, then a name of ≤ 63. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const problems: string[] = [];
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else for (const problem of dns1123SubdomainProblems(prefix)) problems.push(`prefix part ${problem}`);
  } else if (parts.length > 2) {
    return [
      `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME_PART}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (name.length > 0 && !whole(QUALIFIED_NAME_PART).test(name))
    problems.push(
      `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME_PART}')`,
    );
  return problems;
}

/** Label values: empty, or at most 63 characters of `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`. */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!whole(LABEL_VALUE).test(value))
    problems.push(
      `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`,
    );
  return problems;
}

/** Keys of a Secret's (or ConfigMap's) data. */
export function configKeyProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!whole(CONFIG_KEY).test(value))
    problems.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_KEY}')`,
    );
  if (value === '.' || value === '..' || value.startsWith('..'))
    problems.push("must not be '.' or '..' or start with '..'");
  return problems;
}

export function envVarNameProblems(value: string): string[] {
  return whole(ENV_VAR_NAME).test(value)
    ? []
    : [
        `a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '${ENV_VAR_NAME}')`,
      ];
}
