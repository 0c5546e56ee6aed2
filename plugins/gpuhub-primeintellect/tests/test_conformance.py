from gpuhub.plugin import ProviderConformance


class TestPrimeintellectCloudConformance(ProviderConformance):
    provider_name = "primeintellect"
    empty_body = b"[]"
