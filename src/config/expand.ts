import type { ConfigProblem } from './errors.js';

/**
 * Replaces `${VAR}` in every string scalar of a parsed YAML document, after parsing so that a value
 * can never inject YAML structure. `$${` is a literal `${`. Unset (or empty) variables are problems
 * that name the variable and the field, never the surrounding value. In a key that takes a number
 * (`numberKeys`, dotted paths), an expansion that gives a whole number is that number, as if it had
 * been written there: a number typed in quotes stays text, which the schema rejects.
 */
export function expandEnv(
  document: unknown,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  numberKeys: ReadonlySet<string> = new Set(),
): unknown {
  const expand = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      const text = expandString(value, env, problems, path);
      return text !== value && numberKeys.has(path) && /^[0-9]+$/.test(text) ? Number(text) : text;
    }
    if (Array.isArray(value)) return value.map((item, index) => expand(item, `${path}[${index}]`));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, expand(item, path === '' ? key : `${path}.${key}`)]),
      );
    }
    return value;
  };
  return expand(document, '');
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
