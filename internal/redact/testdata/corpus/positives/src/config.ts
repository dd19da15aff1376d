import { initializeApp } from "firebase/app";

export const firebaseConfig = {
  apiKey: "@@gcp-api-key@@",
  authDomain: "shop-prod.firebaseapp.com",
  projectId: "shop-prod",
};

export const app = initializeApp(firebaseConfig);
