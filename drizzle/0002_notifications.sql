CREATE TABLE "consent_request_deliveries" (
	"job_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"batch" integer NOT NULL,
	"transport" text NOT NULL,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consent_request_deliveries_job_id_user_id_pk" PRIMARY KEY("job_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "consent_request_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"purpose_id" uuid NOT NULL,
	"attribute_ids" jsonb NOT NULL,
	"requested_by" jsonb NOT NULL,
	"state" text NOT NULL,
	"batch_seq" integer DEFAULT 0 NOT NULL,
	"cursor" uuid,
	"scan_done" boolean DEFAULT false NOT NULL,
	"notified" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_transports" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"email_enabled" boolean DEFAULT false NOT NULL,
	"webhook_url" text,
	"webhook_secret_sealed" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"url" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" integer,
	"error" text,
	"duration_ms" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "consent_request_deliveries" ADD CONSTRAINT "consent_request_deliveries_job_id_consent_request_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."consent_request_jobs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_request_jobs" ADD CONSTRAINT "consent_request_jobs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_request_jobs" ADD CONSTRAINT "consent_request_jobs_purpose_id_purposes_id_fk" FOREIGN KEY ("purpose_id") REFERENCES "public"."purposes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_transports" ADD CONSTRAINT "notification_transports_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consent_request_deliveries_batch" ON "consent_request_deliveries" USING btree ("job_id","batch");--> statement-breakpoint
CREATE INDEX "consent_request_jobs_org" ON "consent_request_jobs" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_org_id" ON "webhook_attempts" USING btree ("org_id","id");