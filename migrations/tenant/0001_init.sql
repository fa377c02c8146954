-- The whole system of record. Every row carries its tenant; every list filter and
-- sort of API.md has an index whose leading columns are (tenant or operation, key).

CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  default_locale TEXT NOT NULL DEFAULT 'en',
  quota_default_minimum INTEGER NOT NULL DEFAULT 0,
  -- Bumped by every quota rule/default write; rule-index caches compare against it.
  rules_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  role TEXT NOT NULL CHECK (role IN ('OPERATOR', 'ACCOUNT')),
  user_id TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  revoked_at TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE operations (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  code TEXT NOT NULL,
  external_id TEXT,
  name TEXT NOT NULL DEFAULT '{}',
  description TEXT NOT NULL DEFAULT '{}',
  -- Lower-cased values of every locale of name, joined: the case-insensitive substring filter.
  name_search TEXT NOT NULL DEFAULT '',
  -- Lower-cased name in the tenant's default locale (else any): the `name` sort key.
  name_sort TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL CHECK (type IN ('PUBLIC', 'PRIVATE')),
  status TEXT NOT NULL CHECK (status IN ('DRAFT', 'ACTIVE', 'INACTIVE')),
  start_date TEXT NOT NULL,
  end_date TEXT NOT NULL,
  owner_ids TEXT NOT NULL DEFAULT '[]',
  line_count INTEGER NOT NULL DEFAULT 0,
  account_count INTEGER NOT NULL DEFAULT 0,
  cart_count INTEGER NOT NULL DEFAULT 0,
  order_count INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX operations_code ON operations (tenant_id, code);
CREATE INDEX operations_external_id ON operations (tenant_id, external_id);
CREATE INDEX operations_created ON operations (tenant_id, created_at, id);
CREATE INDEX operations_status_created ON operations (tenant_id, status, created_at, id);
CREATE INDEX operations_start ON operations (tenant_id, start_date, id);
CREATE INDEX operations_end ON operations (tenant_id, end_date, id);
CREATE INDEX operations_name_sort ON operations (tenant_id, name_sort, id);
CREATE INDEX operations_status_sort ON operations (tenant_id, status, id);
CREATE INDEX operations_type ON operations (tenant_id, type, created_at, id);

CREATE TABLE operation_owners (
  tenant_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  PRIMARY KEY (tenant_id, user_id, operation_id)
) WITHOUT ROWID;
CREATE INDEX operation_owners_operation ON operation_owners (operation_id);

CREATE TABLE operation_lines (
  operation_id TEXT NOT NULL,
  variant_external_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  variant_id TEXT,
  variant_name TEXT NOT NULL DEFAULT '{}',
  variant_name_search TEXT NOT NULL DEFAULT '',
  variant_name_sort TEXT NOT NULL DEFAULT '',
  min_quantity INTEGER NOT NULL,
  max_quantity INTEGER NOT NULL,
  recommended_quantity INTEGER,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (operation_id, variant_external_id)
) WITHOUT ROWID;
CREATE INDEX operation_lines_name_sort ON operation_lines (operation_id, variant_name_sort, variant_external_id);
CREATE INDEX operation_lines_min ON operation_lines (operation_id, min_quantity, variant_external_id);
CREATE INDEX operation_lines_max ON operation_lines (operation_id, max_quantity, variant_external_id);
CREATE INDEX operation_lines_recommended ON operation_lines (operation_id, recommended_quantity, variant_external_id);

CREATE TABLE accounts (
  tenant_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  name_search TEXT NOT NULL,
  users TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, account_id)
) WITHOUT ROWID;
CREATE INDEX accounts_name ON accounts (tenant_id, name_search, account_id);

CREATE TABLE account_users (
  tenant_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  email_lower TEXT NOT NULL,
  PRIMARY KEY (tenant_id, account_id, user_id)
) WITHOUT ROWID;
CREATE INDEX account_users_user ON account_users (tenant_id, user_id, account_id);
CREATE INDEX account_users_email ON account_users (tenant_id, email_lower, account_id);

CREATE TABLE operation_accounts (
  operation_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  operation_status TEXT NOT NULL DEFAULT 'NOT_STARTED'
    CHECK (operation_status IN ('NOT_STARTED', 'CART_CREATED', 'ORDERED')),
  attached_at TEXT NOT NULL,
  attached_by TEXT NOT NULL,
  PRIMARY KEY (operation_id, account_id)
) WITHOUT ROWID;
CREATE INDEX operation_accounts_attached ON operation_accounts (operation_id, attached_at, account_id);
CREATE INDEX operation_accounts_status ON operation_accounts (operation_id, operation_status, account_id);
CREATE INDEX operation_accounts_account ON operation_accounts (tenant_id, account_id, operation_id);

CREATE TABLE quota_rules (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  account_id TEXT,
  supplier_id TEXT,
  store_id TEXT,
  minimum INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX quota_rules_scope ON quota_rules (
  tenant_id, coalesce(account_id, ''), coalesce(supplier_id, ''), coalesce(store_id, '')
);
CREATE INDEX quota_rules_created ON quota_rules (tenant_id, created_at, id);
CREATE INDEX quota_rules_account ON quota_rules (tenant_id, account_id, id);
CREATE INDEX quota_rules_supplier ON quota_rules (tenant_id, supplier_id, id);

CREATE TABLE carts (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  store_id TEXT,
  lines TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX carts_operation ON carts (operation_id, created_at, id);

CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  operation_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  cart_id TEXT,
  store_id TEXT,
  lines TEXT NOT NULL,
  total INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX orders_operation ON orders (operation_id, created_at, id);

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  type TEXT NOT NULL,
  operation_id TEXT,
  rule_id TEXT,
  actor TEXT NOT NULL,
  at TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_tenant ON events (tenant_id, id);

CREATE TABLE idempotency_keys (
  tenant_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('PENDING', 'DONE')),
  response_status INTEGER,
  response_headers TEXT,
  response_body TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, idempotency_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- A batch that must only apply while some state still holds inserts a 0 here when it
-- does not; the CHECK then aborts the whole batch (D1 batches are one transaction).
CREATE TABLE write_guard (ok INTEGER NOT NULL CHECK (ok = 1));
