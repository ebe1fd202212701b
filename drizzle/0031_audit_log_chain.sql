CREATE TABLE "org_audit_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"link" "bytea" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "actor_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "actor_email" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "target_type" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "target_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "changes" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "request_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "client_ip" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "seq" bigint;--> statement-breakpoint
ALTER TABLE "org_audit_log" ADD COLUMN "link" "bytea";--> statement-breakpoint
ALTER TABLE "org_audit_heads" ADD CONSTRAINT "org_audit_heads_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "org_audit_log_org_seq" ON "org_audit_log" USING btree ("org_id","seq");--> statement-breakpoint
CREATE INDEX "org_audit_log_unsealed" ON "org_audit_log" USING btree ("org_id","id") WHERE "org_audit_log"."seq" IS NULL;--> statement-breakpoint
UPDATE "org_audit_log" SET "source" = 'import' WHERE "detail"->>'source' = 'import';