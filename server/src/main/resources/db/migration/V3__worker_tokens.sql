-- Worker-bound credentials: only the SHA-256 of the token handed out at registration is kept.
alter table worker add column token_hash bytea;
create unique index worker_token_hash on worker (token_hash) where token_hash is not null;
