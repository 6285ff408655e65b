import { parseDocument } from 'yaml';
import type { ConfigProblem } from './errors.js';

/**
 * Parses a YAML document into plain data, or pushes its syntax errors and returns undefined. Errors
 * give the line and column but never the library's message, which quotes the source line: that line
 * may hold a secret. Duplicate keys are errors.
 */
export function parseYaml(text: string, source: string, problems: ConfigProblem[]): unknown {
  // prettyErrors is what fills in linePos.
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length === 0) {
    try {
      return (document.toJS() as unknown) ?? {};
    } catch {
      // toJS refuses documents that expand aliases without bound (a "billion laughs" file).
      problems.push({ path: source, message: 'expands YAML aliases too often to be read' });
      return undefined;
    }
  }
  for (const error of document.errors) {
    const where = error.linePos?.[0];
    problems.push({
      path: source,
      message: `is not valid YAML${where === undefined ? '' : ` at line ${where.line}, column ${where.col}`} (${error.code})`,
    });
  }
  return undefined;
}
