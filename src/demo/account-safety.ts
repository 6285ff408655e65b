// The personal data the simulated account-safety endpoints serve (audit events, team members): every
// value here must never reach /metrics, a log line, the landing page or --check-config, and the
// tests scan for each (test/faults/account-safety.test.ts, "personal data"). Kept apart from every name the
// exporter does export (database names, team names, the egress ranges), so that a scan finding one is a leak.

/** Who acts in the demo's audit log (`actor`) and owns the account (`customer_id`). */
export const DEMO_AUDIT_ACTORS = ['ada.lovelace@people.example', 'grace.hopper@people.example'] as const;
/** The account owner the audit events name as `customer_id`. */
export const DEMO_AUDIT_CUSTOMER = 'owner-0x51@people.example';
/** The callers' addresses of the demo's audit events (`ip`), documentation ranges of RFC 5737. */
export const DEMO_AUDIT_IPS = ['198.51.100.23', '203.0.113.77'] as const;
/** The resources the demo's audit events touch (`entity`, `secondary_entity`, `third_entity`). */
export const DEMO_AUDIT_ENTITIES = [
  'entity-payroll-redis-7f1',
  'entity-staging-team-2c9',
  'entity-ci-key-scope-4d0',
] as const;
/** The names of the API keys behind `source` (`API_KEY - <name>`): only the kind is exported. */
export const DEMO_API_KEY_NAMES = ['deploy-bot-key-91', 'terraform-key-33'] as const;
/** The e-mails of the demo teams' members (`member_email`). */
export const DEMO_MEMBER_EMAILS = [
  'owner.platform@people.example',
  'admin.one@people.example',
  'admin.two@people.example',
  'dev.one@people.example',
  'dev.two@people.example',
  'finance.one@people.example',
  'owner.data@people.example',
] as const;

/** Every personal value the simulator serves, for the scans. */
export const DEMO_PERSONAL_VALUES: readonly string[] = [
  ...DEMO_AUDIT_ACTORS,
  DEMO_AUDIT_CUSTOMER,
  ...DEMO_AUDIT_IPS,
  ...DEMO_AUDIT_ENTITIES,
  ...DEMO_API_KEY_NAMES,
  ...DEMO_MEMBER_EMAILS,
];
