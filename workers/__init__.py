"""The Celery worker's tasks (:mod:`.tasks`: inbound messages, deliveries, the outbox sweep; :mod:`.beat`:
the lifecycle's tick and the computer's moves) and its entry point (:mod:`.celery_app`). The Celery app
itself is made with the Flask app (``service.celery_init_app``)."""
