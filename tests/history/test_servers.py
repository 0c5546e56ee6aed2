"""The throwaway servers the history tests rely on start and answer (PostgreSQL, S3)."""

from __future__ import annotations


def test_postgres_fixture_gives_an_empty_database_per_test(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url) as conn:
        version = conn.execute("SHOW server_version_num").fetchone()
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        host = conn.execute("SELECT inet_server_addr()::text").fetchone()
    assert version is not None and int(version[0]) >= 130000
    assert tables == (0,)
    assert host is not None and host[0].startswith("127.0.0.1")


def test_moto_s3_server_stores_and_returns_an_object(s3_endpoint: str) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="servers-check")
    s3.put_object(Bucket="servers-check", Key="a/b.txt", Body=b"12.34")
    assert s3.get_object(Bucket="servers-check", Key="a/b.txt")["Body"].read() == b"12.34"
    assert s3_endpoint.startswith("http://127.0.0.1:")
