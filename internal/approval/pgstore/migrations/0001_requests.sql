-- Approval requests: one row each, the request (its grant, decision,
-- session stop and results) as the file store's JSON document, with the
-- columns the store looks rows up by.
CREATE TABLE toolguard_approval_requests (
    id       text PRIMARY KEY,
    key      text NOT NULL,
    session  text NOT NULL DEFAULT '',
    status   text NOT NULL,
    created  timestamptz NOT NULL,
    doc      jsonb NOT NULL,
    updated  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX toolguard_approval_requests_key ON toolguard_approval_requests (key);
CREATE INDEX toolguard_approval_requests_session ON toolguard_approval_requests (session);
