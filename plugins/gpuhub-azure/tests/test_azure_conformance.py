"""The core's conformance kit, plus the Azure-specific credential behaviour (prices are public)."""

from __future__ import annotations

from typing import ClassVar

import httpx
from azure_helpers import RECORDED_REGIONS, azure_registry
from gpuhub_azure.provider import IDENTITY_ENV, AzureProvider

from gpuhub.plugin import ProviderConformance, ReplayTransport, load_manifest, make_engine


class TestAzureConformance(ProviderConformance):
    provider_name = "azure"
    min_offers = 500
    empty_body = (b'{"BillingCurrency":"USD","CustomerEntityId":"Default","CustomerEntityType":"Retail",'
                  b'"Items":[],"NextPageLink":null,"Count":0}')
    # Live checks walk the regions of the bundled recording (the live default is every Azure region).
    live_environ: ClassVar[dict[str, str] | None] = {"GPUHUB_AZURE_REGIONS": RECORDED_REGIONS}

    def test_credentials_missing_or_rejected(self) -> None:
        """Overrides the kit's check: Azure prices need no credentials, so a live walk without the (optional)
        identity succeeds and its status names the variables that would add Resource SKUs specs; a 401 fails
        the provider with a message naming them."""
        replay = ReplayTransport(load_manifest(AzureProvider().fixtures_dir()))
        environ = dict(self.live_environ or {})
        offers, missing, _ = self._live(lambda req, n: replay.handle_request(req), environ=environ)
        replayed, _ = self.replay()
        assert missing.state == "ok", missing.line()
        assert len(offers) == len(replayed) == 873  # 16 placeholder spot rows, 22 retired-size prices left out
        assert any(all(v in w for v in IDENTITY_ENV) for w in missing.warnings), missing.warnings
        _, rejected, _ = self._live(lambda req, n: httpx.Response(401, json={"error": "invalid credentials"}))
        assert rejected.state == "failed", rejected.line()
        assert all(v in (rejected.reason or "") for v in IDENTITY_ENV), rejected.line()


def test_auto_mode_replays_without_identity_and_goes_live_with_it() -> None:
    engine = make_engine(azure_registry(), environ={})
    provider = engine.registry.providers["azure"]
    plan = engine.plan(provider, "auto")
    assert not isinstance(plan, str) and plan.mode == "replay" and plan.recording == provider.fixtures_dir()
    configured = make_engine(azure_registry(), environ={name: "x" for name in IDENTITY_ENV})
    live = configured.plan(provider, "auto")
    assert not isinstance(live, str) and live.mode == "live"


def test_provider_attributes() -> None:
    provider = AzureProvider()
    assert (provider.name, provider.kind, provider.base_url) == ("azure", "hyperscaler", "https://prices.azure.com")
    assert provider.credentials[0].env == ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET",
                                           "AZURE_SUBSCRIPTION_ID")
    assert (provider.fixtures_dir() / "manifest.json").is_file()
