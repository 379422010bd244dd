-- +goose Up
-- Every channel's filters (CONTRACT 7): the lowest severity of the tickets
-- it is sent at once, and the environments and services it takes (JSON
-- lists; empty means all). A webhook channel's format: errata (the signed
-- bodies of the interface document) or a chat tool's.
ALTER TABLE channels ADD COLUMN format TEXT NOT NULL DEFAULT 'errata';
ALTER TABLE channels ADD COLUMN min_severity TEXT NOT NULL DEFAULT 'high';
ALTER TABLE channels ADD COLUMN environments TEXT NOT NULL DEFAULT '[]';
ALTER TABLE channels ADD COLUMN services TEXT NOT NULL DEFAULT '[]';

-- A delivery's format says how its stored body becomes what is sent:
-- errata (the body as stored), a chat tool's (the stored notification,
-- rendered at each attempt) or email. A system email (an invitation) has no
-- channel, and its body names the recipient.
ALTER TABLE deliveries ADD COLUMN format TEXT NOT NULL DEFAULT 'errata';
UPDATE deliveries SET format = 'email' FROM channels c WHERE c.id = deliveries.channel_id AND c.type = 'email';
ALTER TABLE deliveries ALTER COLUMN channel_id DROP NOT NULL;
-- System emails by what they are about (an invitation's email by the
-- invitation), for the status shown with it.
CREATE INDEX deliveries_system ON deliveries(subject_id) WHERE channel_id IS NULL;

-- +goose Down
DROP INDEX deliveries_system;
DELETE FROM deliveries WHERE channel_id IS NULL;
ALTER TABLE deliveries ALTER COLUMN channel_id SET NOT NULL;
ALTER TABLE deliveries DROP COLUMN format;
ALTER TABLE channels DROP COLUMN services;
ALTER TABLE channels DROP COLUMN environments;
ALTER TABLE channels DROP COLUMN min_severity;
ALTER TABLE channels DROP COLUMN format;
