-- The audit chain: the lines the JSONL log would hold, in order, each
-- chained to the one before by its prev (SHA-256 of the previous line).
CREATE TABLE toolguard_audit (
    seq      bigserial PRIMARY KEY,
    line     text NOT NULL,
    written  timestamptz NOT NULL DEFAULT now()
);
