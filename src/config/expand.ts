import type { ConfigProblem } from './errors.js';

/**
 * Replaces `${VAR}` in every string scalar of a parsed YAML document, after parsing so that a value
 * can never inject YAML structure. `$${` is a literal `${`. Unset (or empty) variables are problems
 * that name the variable and the field, never the surrounding value.
 */
export function expandEnv(
  document: unknown,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  path = '',
): unknown {
  if (typeof document === 'string') return expandString(document, env, problems, path);
  if (Array.isArray(document)) {
    return document.map((item, index) => expandEnv(item, env, problems, `${path}[${index}]`));
  }
  if (document !== null && typeof document === 'object') {
    return Object.fromEntries(
      Object.entries(document).map(([key, value]) => [
        key,
        expandEnv(value, env, problems, path === '' ? key : `${path}.${key}`),
      ]),
    );
  }
  return document;
}

function expandString(text: string, env: NodeJS.ProcessEnv, problems: ConfigProblem[], path: string): string {
  return text.replace(/\$\$\{|\$\{([^}]*)\}/g, (match, name: string | undefined) => {
    if (match === '$${') return '${';
    if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      problems.push({ path, message: 'has a malformed ${…} reference (expected ${NAME})' });
      return '';
    }
    const value = env[name];
    if (value === undefined || value === '') {
      problems.push({ path, message: `refers to environment variable ${name}, which is not set` });
      return '';
    }
    return value;
  });
}
