import os

DEBUG = False
ALLOWED_HOSTS = ["shop.example.com"]

SECRET_KEY = 'f8#kd93!la0qp2-x7m@zq1w9e$r5t6y'

STRIPE_SECRET_KEY = "@@stripe-access-token@@"
SENDGRID_API_KEY = "@@sendgrid-api-token@@"

DATABASE_PASSWORD = os.environ["DATABASE_PASSWORD"]
