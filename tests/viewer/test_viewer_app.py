"""The viewer's frame: where it lives, its assets, what it answers for what it cannot show."""

import httpx


def test_the_viewer_serves_its_own_assets_and_forbids_any_other_source(
    open_viewer, viewer_database
):
    running = open_viewer(viewer_database)
    with httpx.Client(base_url=running.url) as client:
        home = client.get("/", follow_redirects=False)
        assert home.status_code == 303
        assert home.headers["location"] == "/view"
        for asset, kind in [
            ("/view/static/viewer.css", "text/css"),
            ("/view/static/viewer.js", "javascript"),
            ("/view/static/favicon.svg", "image/svg+xml"),
        ]:
            answer = client.get(asset)
            assert answer.status_code == 200, asset
            assert kind in answer.headers["content-type"]
        missing = client.get("/view/key")  # the key form renders even without keys
        assert missing.status_code == 200
        policy = missing.headers["content-security-policy"]
        assert "default-src 'none'" in policy
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
