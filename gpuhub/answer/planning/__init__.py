"""Planning beyond one search (``gpuhub plan``): usage profiles and teams (:mod:`.usage`), the cheapest mix of
purchase models for a profile over months (:mod:`.commit`), one shared cluster against one per team
(:mod:`.sun`), and an instance type's price spread as money saved per month (:mod:`.arbitrage`).

Pure arithmetic on offers the caller passes in: the service layer (:mod:`gpuhub.service.planning`) fetches them.
Money is exact (``Decimal``); each monthly figure is rounded to the cent once, and totals are sums of the rounded
parts, so a total always equals the sum of the parts it shows.
"""
