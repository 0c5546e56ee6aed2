from gpuhub.plugin import ProviderConformance


class TestShadeformCloudConformance(ProviderConformance):
    provider_name = "shadeform"
    empty_body = b"[]"
