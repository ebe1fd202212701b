DROP INDEX "consent_events_record";--> statement-breakpoint
CREATE INDEX "consent_events_record_attribute" ON "consent_events" USING btree ("record_id","purpose_id","attribute_id","occurred_at","written");--> statement-breakpoint
CREATE INDEX "consent_events_org_time" ON "consent_events" USING btree ("org_id","occurred_at");