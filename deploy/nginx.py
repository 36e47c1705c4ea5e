"""Fill deploy/nginx.conf's @NAMES@ and print the result (or write it with --out).

    .venv/bin/python deploy/nginx.py --server-name capicu.example.org \\
        --static-root /srv/capicu/staticfiles \\
        --tls "ssl_certificate /etc/ssl/capicu.pem; ssl_certificate_key /etc/ssl/capicu.key;" \\
        --out /etc/nginx/conf.d/capicu.conf
"""

import argparse
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().with_name("nginx.conf")


def render(
    *,
    web: str = "127.0.0.1:8000",
    live: str = "127.0.0.1:8002",
    events: str = "127.0.0.1:8001",
    listen: str = "443 ssl",
    server_name: str = "_",
    static_root: str,
    cache_dir: str = "/var/cache/nginx/capicu",
    tls: str = "",
    template: Path = TEMPLATE,
) -> str:
    """The configuration with every @NAME@ filled; none may be left. ``template``: another
    version of deploy/nginx.conf (the live-load bench compares one with this one)."""
    values = {
        "WEB": web,
        "LIVE": live,
        "EVENTS": events,
        "LISTEN": listen,
        "SERVER_NAME": server_name,
        "STATIC_ROOT": str(static_root).rstrip("/"),
        "CACHE_DIR": cache_dir,
        "TLS": tls,
    }
    text = Path(template).read_text()
    for name, value in values.items():
        text = text.replace(f"@{name}@", value)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    if "@" in body:
        raise ValueError("a @NAME@ of deploy/nginx.conf was left unfilled")
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--web", default="127.0.0.1:8000")
    parser.add_argument("--live", default="127.0.0.1:8002", help="the live polls' pool")
    parser.add_argument("--events", default="127.0.0.1:8001")
    parser.add_argument("--listen", default="443 ssl")
    parser.add_argument("--server-name", default="_")
    parser.add_argument("--static-root", required=True)
    parser.add_argument("--cache-dir", default="/var/cache/nginx/capicu")
    parser.add_argument("--tls", default="")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    text = render(
        web=args.web,
        live=args.live,
        events=args.events,
        listen=args.listen,
        server_name=args.server_name,
        static_root=args.static_root,
        cache_dir=args.cache_dir,
        tls=args.tls,
    )
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
