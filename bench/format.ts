// How the report spells figures, shared by its sections.

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;
export const fixed = (value: number, digits = 1): string =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
export const mark = (ok: boolean): string => (ok ? 'met' : '**not met**');
